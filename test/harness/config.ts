import { type Config, loadConfig } from '../../common/config';

/** The service config pointed at this run's test servers; `overrides` win over the environment. */
export function testConfig(overrides: Partial<Record<string, string>> = {}): Config {
  if (!process.env.REDIS_URL) {
    throw new Error(
      'REDIS_URL is not set: the test servers were not started. Run tests through jest (npm test), ' +
        'whose global setup (test/harness/global-setup.ts) starts them.',
    );
  }
  return loadConfig({ ...process.env, ...overrides });
}
