import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useInProcessCli } from '../support/cli.js';

interface Status {
  current_key_id: string;
  keys: { id: string; kek_id: string; current: boolean; created_at: string; retired_at: string | null; values: number }[];
}

const json = <T>(out: { stdout: string }): T => JSON.parse(out.stdout) as T;

describe('./bin/gateway secrets', () => {
  const gateway = useInProcessCli('secrets');

  it('shows the current key, generated under a secret kept beside the database with mode 0600', async () => {
    const status = json<Status>(await gateway('secrets', 'status', '--json'));
    expect(status.keys).toHaveLength(1);
    expect(status.keys[0]).toMatchObject({ id: status.current_key_id, current: true, retired_at: null, values: 0 });
    expect(status.current_key_id).toMatch(/^sk_[0-9a-z]{26}$/);
    const secretFile = join(dirname((process.env.DATABASE_URL ?? '').slice('sqlite:'.length)), 'gateway.secret');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(json<Status>(await gateway('secrets', 'status', '--json')).current_key_id).toBe(status.current_key_id);
  });

  it('rotates to a new current key under the same master secret, and says so', async () => {
    const before = json<Status>(await gateway('secrets', 'status', '--json'));
    const rotated = json<{ key_id: string; reencrypted: number }>(await gateway('secrets', 'rotate', '--json'));
    expect(rotated.key_id).not.toBe(before.current_key_id);
    expect(rotated.reencrypted).toBe(0);
    const after = json<Status>(await gateway('secrets', 'status', '--json'));
    expect(after.current_key_id).toBe(rotated.key_id);
    expect(after.keys.map((k) => [k.id, k.current, k.retired_at !== null])).toEqual([
      [before.current_key_id, false, true],
      [rotated.key_id, true, false],
    ]);
    expect(new Set(after.keys.map((k) => k.kek_id)).size).toBe(1);

    const human = await gateway('secrets', 'rotate');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^data key sk_[0-9a-z]{26} is current; re-encrypted 0 values under it\n$/);
    const table = (await gateway('secrets', 'status')).stdout.split('\n');
    expect(table[0]).toMatch(/^id\s+current\s+values\s+kek_id\s+created_at\s+retired_at$/);
    expect(table.filter((line) => /^sk_\w+\s+yes\s/.test(line))).toHaveLength(1);
  });
});
