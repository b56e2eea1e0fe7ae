/**
 * Jest runs TypeScript through swc; `npm run typecheck` is the type gate.
 *
 * Two projects: every test file against the run's Redis, and once more against the run's 3-master
 * Redis Cluster the files whose operations span slots and the Socket.IO adapter's (the same files,
 * parametrised by the `DDS_REDIS_CLUSTER` global: test/harness/config.ts), plus the cluster's script
 * coverage check (docs/architecture.md "Redis Cluster"). Limits and throttles (one slot each) run
 * on the single Redis only: CI's 20 minutes.
 */
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
};

const CLUSTER_ONLY = ['<rootDir>/test/cluster/**/*.test.ts'];
/** The cluster harness's scenario runs after this whole run, with its own config (`npm run test:cluster`, test/cluster/jest.config.js). */
const CLUSTER_SCENARIO = '<rootDir>/test/cluster/scenario.test.ts';

module.exports = {
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'redis',
      rootDir: __dirname,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
    },
    {
      ...common,
      displayName: 'redis-cluster',
      rootDir: __dirname,
      roots: ['<rootDir>/test'],
      globals: { DDS_REDIS_CLUSTER: true },
      testPathIgnorePatterns: ['/node_modules/', CLUSTER_SCENARIO],
      testMatch: [
        ...CLUSTER_ONLY,
        '<rootDir>/test/ingest/two-nodes.test.ts',
        '<rootDir>/test/api/auth.test.ts',
        '<rootDir>/test/api/projects.test.ts',
        '<rootDir>/test/api/devices.test.ts',
        '<rootDir>/test/management/rules.test.ts',
        '<rootDir>/test/management/widgets.test.ts',
        '<rootDir>/test/management/cascade.test.ts',
        '<rootDir>/test/management/notifications.test.ts',
        '<rootDir>/test/commands/commands.test.ts',
        '<rootDir>/test/alarms/alarms.test.ts',
        '<rootDir>/test/pg/history.test.ts',
        '<rootDir>/test/data/read.test.ts',
        '<rootDir>/test/external/pins.test.ts',
        '<rootDir>/test/management/notification-reads.test.ts',
        '<rootDir>/test/realtime/resync.test.ts',
      ],
    },
  ],
};
