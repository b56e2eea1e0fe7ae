/**
 * The cluster scenario test alone (test/cluster/scenario.test.ts), without the servers of the main
 * jest setup: the harness starts its own, as separate hosts. `npm run test:cluster` (the last step
 * of `npm test`) compiles dist/ and runs it with this config (docs/cluster.md).
 */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/cluster/scenario.test.ts'],
  testTimeout: 30000,
};
