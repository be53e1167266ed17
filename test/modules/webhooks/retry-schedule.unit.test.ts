import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.js';
import { webhookRetryDelayMs, webhooksSettings } from '../../../src/modules/webhooks/webhooks.settings.js';

const HOUR = 3_600_000;

describe('webhook retry schedule', () => {
  it('spreads the default attempts over about a day, one more attempt than delays', () => {
    const { WEBHOOK_RETRY_SCHEDULE: schedule, WEBHOOK_MAX_ATTEMPTS } = webhooksSettings({});
    const total = schedule.reduce((sum, d) => sum + d, 0);
    expect(total).toBeGreaterThanOrEqual(20 * HOUR);
    expect(total).toBeLessThanOrEqual(28 * HOUR);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(schedule.length + 1);
    // Exponential: each delay at least the one before.
    expect(schedule).toEqual([...schedule].sort((a, b) => a - b));
  });

  it('jitters each delay by ±25% and repeats the last past the end', () => {
    const schedule = webhooksSettings({ WEBHOOK_RETRY_SCHEDULE: '30s, 5m,2h' }).WEBHOOK_RETRY_SCHEDULE;
    expect(schedule).toEqual([30_000, 300_000, 2 * HOUR]);
    expect(webhookRetryDelayMs(schedule, 1, () => 0)).toBe(22_500);
    expect(webhookRetryDelayMs(schedule, 1, () => 1)).toBe(37_500);
    expect(webhookRetryDelayMs(schedule, 2, () => 0.5)).toBe(300_000);
    expect(webhookRetryDelayMs(schedule, 9, () => 0.5)).toBe(2 * HOUR);
    expect(webhooksSettings({ WEBHOOK_RETRY_SCHEDULE: '1s', WEBHOOK_MAX_ATTEMPTS: '7' }).WEBHOOK_MAX_ATTEMPTS).toBe(7);
  });

  it('refuses an unreadable schedule at start with one clear line', () => {
    for (const bad of ['', '5 minutes', '1m,,2m', '0s', '-5s', '8d', '30x']) {
      expect(() => webhooksSettings({ WEBHOOK_RETRY_SCHEDULE: bad }), bad).toThrow(ConfigError);
      expect(() => webhooksSettings({ WEBHOOK_RETRY_SCHEDULE: bad })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    }
  });
});
