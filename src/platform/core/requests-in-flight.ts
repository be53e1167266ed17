/** Whether the process is answering requests now: what background work that yields to requests reads. */
export interface LoadSignal {
  readonly busy: boolean;
}

/**
 * The requests this process has taken and not yet finished answering, counted by the HTTP frame (in when a request
 * comes in, out when its response closes, answered or dropped). Tests set it by hand, with no request and no timing.
 */
export class RequestsInFlight implements LoadSignal {
  private count = 0;

  get busy(): boolean {
    return this.count > 0;
  }

  enter(): void {
    this.count += 1;
  }

  readonly leave = (): void => {
    this.count = Math.max(0, this.count - 1);
  };
}
