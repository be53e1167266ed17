import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { telematicsSettings } from '../../../src/modules/telematics/telematics.settings.js';

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
});
