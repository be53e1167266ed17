import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../platform/outbox/process-support.js';
import { waitFor } from '../support/wait-for.js';

/**
 * No Docker daemon here: this runs the Dockerfile's own npm commands, stage by stage, in a clean copy of the
 * repository (the build context after .dockerignore), then starts the runtime stage's CMD as an unprivileged user
 * and runs its HEALTHCHECK. System packages (apt-get) and image-only steps (mkdir /data) are the host's part.
 */

const repo = join(import.meta.dirname, '../..');

interface Step {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  steps: Step[];
}

/** Instructions per stage, continuation lines joined and comments dropped. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) pending += `${line.slice(0, -1).trim()} `;
    else {
      logical.push(pending + line);
      pending = '';
    }
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.length), steps: [] });
    else stages.at(-1)?.steps.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

/** `ENV A=1 B=2` (the key=value form). */
function envPairs(args: string): Record<string, string> {
  return Object.fromEntries(args.split(/\s+/).filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));
}

/** An exec-form `["a", "b"]` argument list. */
function execForm(args: string): string[] {
  const list = JSON.parse(args) as unknown;
  if (!Array.isArray(list) || !list.every((a) => typeof a === 'string')) throw new Error(`not an exec-form list: ${args}`);
  return list;
}

/** The build context: tracked and untracked-but-not-ignored files of the working tree, minus .dockerignore's entries. */
function copyContext(to: string): void {
  const ignore = readFileSync(join(repo, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  // .dockerignore's simple forms: a name or `*` glob matching a leading path or the file's own name.
  const globs = ignore.map((pattern) => new RegExp(`^${pattern.replace(/^\/+|\/+$/g, '').split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`));
  const ignored = (file: string): boolean => {
    const parts = file.split('/');
    return globs.some((glob) => glob.test(parts.at(-1) ?? '') || parts.some((_part, i) => glob.test(parts.slice(0, i + 1).join('/'))));
  };
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (ignored(file) || !existsSync(join(repo, file))) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(repo, file), join(to, file));
  }
}

function commandExists(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why this host cannot run the test, if it cannot; CI must. */
function missing(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  const tools = ['git', 'npm', 'python3', 'make', 'g++'].filter((t) => !commandExists(t));
  if (tools.length) return `missing ${tools.join(', ')}`;
  return undefined;
}

/** The Node headers better-sqlite3 compiles against: the image's /usr/local on the image, this Node's own prefix here. */
function hostNodeDir(): string | undefined {
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, 'include/node/node_version.h')) ? prefix : undefined;
}

/** Stage commands still running: a timed-out test stops them instead of leaving a compiler behind. */
const running = new Set<ChildProcess>();

async function sh(command: string, cwd: string, env: NodeJS.ProcessEnv, log: string[]): Promise<void> {
  log.push(`$ (${cwd}) ${command}`);
  const started = Date.now();
  // Its own process group, so the compiler npm starts stops with it.
  const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  running.delete(child);
  log.push(`  (${Math.round((Date.now() - started) / 1000)} s)`);
  if (code !== 0) throw new Error(`\`${command}\` exited with ${code}:\n${output.slice(-4000)}`);
}

const skipReason = missing();
if (skipReason && process.env.CI) throw new Error(`the Dockerfile test must run in CI, but: ${skipReason}`);

// The image runs the embedded default: the PostgreSQL pass of CI (TEST_DIALECTS=postgres) has nothing to add to it.
const otherPass = process.env.TEST_DIALECTS !== undefined && !process.env.TEST_DIALECTS.split(',').includes('sqlite');

describe.skipIf(skipReason !== undefined || otherPass)(`the Dockerfile's commands in a clean copy${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const root = mkdtempSync(join(tmpdir(), 'gateway-dockerfile-'));
  const stages = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
  const runtime = stages.at(-1);
  let server: ChildProcess | undefined;

  afterAll(async () => {
    for (const child of running) if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    // Two node_modules trees take a while to delete on a busy disk; nothing waits for them.
    spawn('rm', ['-rf', root], { detached: true, stdio: 'ignore' }).unref();
  }, 60_000);

  it('runs a non-root, health-checked runtime on port 8080 with a data volume', () => {
    const ops = (runtime?.steps ?? []).map((s) => s.op);
    const user = runtime?.steps.findLast((s) => s.op === 'USER')?.args;
    expect(user, 'runtime USER').toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(ops).toEqual(expect.arrayContaining(['HEALTHCHECK', 'EXPOSE', 'VOLUME', 'CMD']));
    expect(runtime?.steps.find((s) => s.op === 'EXPOSE')?.args).toBe('8080');
    expect(stages.length).toBeGreaterThanOrEqual(2);
  });

  it('builds, installs production dependencies only, and the started gateway passes its own HEALTHCHECK', { timeout: 420_000 }, async () => {
    if (!runtime) throw new Error('no stages');
    chmodSync(root, 0o755);
    const context = join(root, 'context');
    copyContext(context);
    const log: string[] = [];
    const nodeDir = hostNodeDir();
    const stageDirs = new Map<string, { base: string; workdir: string; env: Record<string, string> }>();

    /** One stage: WORKDIR, ENV and COPY as Docker does them, RUN's npm commands as written (other commands are the image's OS part). */
    const runStage = async (stage: Stage): Promise<void> => {
      const base = join(root, 'stages', stage.name);
      let workdir = base;
      const env: Record<string, string> = {};
      for (const { op, args } of stage.steps) {
        if (op === 'WORKDIR') mkdirSync((workdir = join(base, args)), { recursive: true });
        else if (op === 'ENV') Object.assign(env, envPairs(args));
        else if (op === 'COPY') {
          const words = args.split(/\s+/);
          const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
          const [dest = '.', ...sources] = words.filter((w) => !w.startsWith('--')).reverse();
          // A stage's paths are absolute in its own filesystem; the context's are relative to it.
          const sourceRoot = from === undefined ? context : stageDirs.get(from)?.base;
          if (sourceRoot === undefined) throw new Error(`COPY --from=${from} before that stage ran`);
          for (const source of sources.reverse()) {
            const target = dest.endsWith('/') || sources.length > 1 || source === '.' ? join(workdir, dest, source === '.' ? '' : posix.basename(source)) : join(workdir, dest);
            cpSync(join(sourceRoot, source), target, { recursive: true });
          }
        } else if (op === 'RUN') {
          for (const command of args.split('&&').map((c) => c.trim())) {
            if (!command.startsWith('npm ')) {
              log.push(`skipped (image OS step): ${command}`);
              continue;
            }
            const stageEnv: NodeJS.ProcessEnv = { ...process.env, ...env, npm_config_prefer_offline: 'true' };
            if (env.npm_config_nodedir !== undefined && nodeDir !== undefined) stageEnv.npm_config_nodedir = nodeDir;
            await sh(command, workdir, stageEnv, log);
          }
        }
      }
      stageDirs.set(stage.name, { base, workdir, env });
    };

    // Stages the runtime copies from are independent, as BuildKit runs them.
    await Promise.all(stages.slice(0, -1).map(runStage));
    await runStage(runtime);
    const app = stageDirs.get(runtime.name);
    if (!app) throw new Error('runtime stage did not run');

    // Production install only: no dev dependency made it into the runtime.
    for (const dev of ['vitest', 'typescript', 'eslint']) expect(existsSync(join(app.workdir, 'node_modules', dev)), `${dev} in the runtime`).toBe(false);
    expect(existsSync(join(app.workdir, 'dist/src/main.js'))).toBe(true);

    const data = join(root, 'data');
    mkdirSync(data);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...app.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(data, 'gateway.sqlite')}`,
      LOG_LEVEL: 'warn',
    };
    // The image runs as `node`; here the unprivileged user is nobody (65534), when this runs as root.
    const asRoot = process.getuid?.() === 0 && commandExists('setpriv');
    const asUser = (argv: string[]): string[] => (asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', ...argv] : argv);
    if (asRoot) chownSync(data, 65534, 65534);

    const cmd = execForm(runtime.steps.findLast((s) => s.op === 'CMD')?.args ?? '[]');
    const [file = '', ...rest] = asUser(cmd);
    let output = '';
    server = spawn(file, rest, { cwd: app.workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (output += d.toString()));

    const healthcheck = runtime.steps.find((s) => s.op === 'HEALTHCHECK')?.args ?? '';
    const probe = execForm(healthcheck.slice(healthcheck.indexOf('CMD ') + 'CMD '.length));
    const healthy = (): boolean => {
      if (server?.exitCode !== null) throw new Error(`the gateway exited with ${server?.exitCode}:\n${output}`);
      const [probeFile = '', ...probeArgs] = asUser(probe);
      try {
        execFileSync(probeFile, probeArgs, { cwd: app.workdir, env, stdio: 'ignore', timeout: 5_000 });
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(healthy, { what: 'the HEALTHCHECK to pass', timeoutMs: 30_000, intervalMs: 250 });
    // What ran and how long each step took, for whoever reads the test output.
    process.stdout.write(`${log.join('\n')}\n`);
    // The probe ran synchronously, so the gateway's own line may still be on its way through the pipe.
    await waitFor(() => output.includes(`listening on http://127.0.0.1:${port}`), { what: `the listening line in:\n${output}` });
    if (asRoot) {
      // The gateway ran unprivileged: the files it made belong to nobody.
      const owner = execFileSync('stat', ['-c', '%u', join(data, 'gateway.sqlite')], { encoding: 'utf8' }).trim();
      expect(owner).toBe('65534');
    }
  });
});
