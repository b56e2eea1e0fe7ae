import { randomUUID } from 'node:crypto';
import { type Config, loadConfig } from '../../common/config';

/** The service config pointed at this run's test servers; `overrides` win over the environment. */
export function testConfig(overrides: Partial<Record<string, string>> = {}): Config {
  if (!process.env.REDIS_URL) {
    throw new Error(
      'REDIS_URL is not set: the test servers were not started. Run tests through jest (npm test), ' +
        'whose global setup (test/harness/global-setup.ts) starts them.',
    );
  }
  // A node name of its own (its broker sessions are named after it) and sessions that do not
  // outlive the run: test files share one broker. In the `redis-cluster` jest project
  // (jest.config.js) every connection goes to the run's Redis Cluster instead of its Redis.
  const redis = onRedisCluster() ? { REDIS_CLUSTER_NODES: process.env.DDS_TEST_REDIS_CLUSTER_NODES } : {};
  return loadConfig({ ...process.env, NODE_ID: `test-${randomUUID()}`, MQTT_SESSION_EXPIRY_S: '60', ...redis, ...overrides });
}

/** Whether this test file runs in the `redis-cluster` jest project (its `globals`). */
export function onRedisCluster(): boolean {
  return (globalThis as { DDS_REDIS_CLUSTER?: boolean }).DDS_REDIS_CLUSTER === true;
}
