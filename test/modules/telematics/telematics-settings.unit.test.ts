import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { futureSkews, telematicsSettings } from '../../../src/modules/telematics/telematics.settings.js';

describe('telematics settings, declared by the module', () => {
  it('reads its own variables from the environment the config was loaded from, with defaults', () => {
    const config = loadConfig({ POLLER_CONCURRENCY: '3', VENDOR_SIM_URL: 'http://127.0.0.1:9/' });
    expect(telematicsSettings(config.environment)).toMatchObject({ POLLER_CONCURRENCY: 3, POLLER_PER_PROVIDER: 4, POLL_LEASE_MS: 120_000, VENDOR_SIM_URL: 'http://127.0.0.1:9/' });
    expect(config).not.toHaveProperty('POLLER_CONCURRENCY');
  });

  it('refuses a bad value with one line naming the variable', () => {
    for (const [name, value] of [['POLLER_CONCURRENCY', '0'], ['POLL_LEASE_MS', 'soon'], ['VENDOR_SIM_URL', 'not a url']] as const) {
      expect(() => telematicsSettings({ [name]: value })).toThrow(ConfigError);
      expect(() => telematicsSettings({ [name]: value })).toThrow(new RegExp(`^invalid configuration: ${name}: `));
    }
  });

  it('the future skew: 10 minutes, FUTURE_SKEW_S, and a per-provider override; a bad one fails start naming it', () => {
    expect(futureSkews(telematicsSettings({}), {})('vendor1_livelink')).toBe(600_000);
    const env = { FUTURE_SKEW_S: '120', PROVIDER_VENDOR13_FUTURE_SKEW_S: '3600' };
    const skew = futureSkews(telematicsSettings(env), env);
    expect([skew('vendor1_livelink'), skew('vendor13')]).toEqual([120_000, 3_600_000]);
    expect(() => telematicsSettings({ FUTURE_SKEW_S: '-1' })).toThrow(/^invalid configuration: FUTURE_SKEW_S: /);
    expect(() => futureSkews(telematicsSettings({}), { PROVIDER_VENDOR13_FUTURE_SKEW_S: 'soon' })).toThrow(/^invalid configuration: PROVIDER_VENDOR13_FUTURE_SKEW_S: /);
  });
});
