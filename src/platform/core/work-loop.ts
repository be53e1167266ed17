/**
 * The lifecycle every background worker shares: once started, runs `round` again and again; after a round that did
 * no work (or threw) it sleeps `idleMs`, which wake() and stop() cut short (a wake() during a round skips the sleep
 * after it). stop() waits for the round in flight.
 */
export class WorkLoop {
  private started = false;
  private loop: Promise<void> | undefined;
  private wakeSleeper: (() => void) | undefined;
  /** wake() came while a round ran: the round may have read the state before the change, so the next one starts at once. */
  private wokenDuringRound = false;

  constructor(
    /** One round of work; answers whether it did any (then the next round starts at once). */
    private readonly round: () => Promise<boolean>,
    /** idleMs: the sleep after a round that did no work; a function when the worker knows its next work is due sooner. */
    private readonly options: { idleMs: number | (() => number); onError: (err: unknown) => void },
  ) {}

  /** A started loop asked to stop: a long round checks it to end early. A round run by hand never is. */
  get stopping(): boolean {
    return this.loop !== undefined && !this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.wake();
    await this.loop;
  }

  /** Ends the sleep now: there is work (a slot came free, a change was queued). */
  wake(): void {
    if (this.wakeSleeper === undefined) this.wokenDuringRound = true;
    else this.wakeSleeper();
  }

  private async run(): Promise<void> {
    while (this.started) {
      let worked = false;
      this.wokenDuringRound = false;
      try {
        worked = await this.round();
      } catch (err) {
        this.options.onError(err);
      }
      if (!worked && this.started && !this.wokenDuringRound) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const { idleMs } = this.options;
      const timer = setTimeout(done, typeof idleMs === 'number' ? idleMs : idleMs());
      this.wakeSleeper = done;
    });
  }
}

/** Work a module does in the background of a serving process, claimed with leases so any number of processes can run it. */
export interface BackgroundWorker {
  name: string;
  start(): void;
  /** Stops claiming, lets work in flight finish and release its claims. */
  stop(): Promise<void>;
}

/**
 * A WorkLoop that keeps up to `concurrency` claimed items running at once: each round claims what the free slots allow
 * (`round` answers how many it started) and holds a slot per item until the item settles, which wakes the loop to claim
 * again at once. stop() stops claiming and waits for the items in flight.
 */
export class SlotLoop {
  private readonly loop: WorkLoop;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly concurrency: number,
    round: () => Promise<number>,
    options: { idleMs: number; onError: (err: unknown) => void },
  ) {
    this.loop = new WorkLoop(async () => (await round()) > 0, options);
  }

  /** Slots free for a round to claim into. */
  get free(): number {
    return this.concurrency - this.inFlight.size;
  }

  /** Asked to stop: a long item checks it to give its claim back early. */
  get stopping(): boolean {
    return this.loop.stopping;
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.idle();
  }

  /** Resolves when the items started so far have settled (tests and shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }

  /** Holds a slot for `item` until it settles. The item handles its own failure: it must not reject. */
  hold(id: string, item: Promise<void>): void {
    this.inFlight.set(
      id,
      item.finally(() => {
        this.inFlight.delete(id);
        this.loop.wake();
      }),
    );
  }
}
