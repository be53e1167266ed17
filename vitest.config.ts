import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Tiers: a test file is `unit` (no process, network or database) or `process` (spawns a server, CLI or browser) when listed or named below, else `http`.
const UNIT = [
  'test/**/*.unit.test.ts',
  'test/modules/edi/x12/**/*.test.ts',
  'test/modules/edi/messages/outbound.property.test.ts',
  'test/platform/http/request-frame.test.ts',
  'test/platform/money.test.ts',
  'test/platform/operations/fingerprint.test.ts',
  'test/platform/ratelimit/memory-store.test.ts',
  'test/platform/ratelimit/sliding-window.test.ts',
  'test/platform/secrets/mask.test.ts',
  'test/platform/work-loop.test.ts',
];
const PROCESS = [
  'test/**/*.process.test.ts',
  'test/cli/cli.test.ts',
  'test/demo/**/*.test.ts',
  'test/scale/**/*.test.ts',
  'test/modules/objects/objects-cli.test.ts',
  'test/modules/portal/browser/widget.browser.test.ts',
  'test/modules/telematics/polling/poller-crash.test.ts',
  'test/platform/db/group-commit.test.ts',
  'test/platform/http/access-log-stream.test.ts',
  'test/platform/http/hygiene.test.ts',
  'test/platform/http/openapi.test.ts',
  'test/platform/http/text-rules.test.ts',
  'test/platform/outbox/crash-recovery.test.ts',
  'test/platform/outbox/deliveries-cli.test.ts',
  'test/platform/outbox/idempotent-crash.test.ts',
  'test/platform/secrets/gateway-secret.test.ts',
  'test/platform/shutdown/serve-shutdown.test.ts',
];

export const config = defineConfig({
  test: {
    pool: 'forks',
    // Files spend much of their time waiting on spawned processes and the database: even 2 cores run two at a time
    // (vitest's default, cores - 1, would run one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // No `include` up here: each project inherits this config (`extends: true`), and include lists would be concatenated.
    projects: [
      // unit and http files share one module graph per worker (no fork per file: ~1.5 s each on 2 cores); each test builds its own gateway.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      { extends: true, test: { name: 'http', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...UNIT, ...PROCESS], isolate: false } },
      // Spawned servers and CLIs start in 1-3 s each on a slow shared machine (a CLI test runs nine in a row): more time, not fewer checks.
      { extends: true, test: { name: 'process', include: PROCESS, testTimeout: 90_000, hookTimeout: 90_000 } },
    ],
  },
});

// vitest loads the config through its default export; the lint rule against default exports exempts this file.
export default config;
