/**
 * The cluster harness's own tests, without the servers of the main jest setup (the harness starts
 * its own, as separate hosts): `npx jest -c test/cluster/jest.config.js` runs the compose check;
 * with `CLUSTER_TEST=1` (as root, after `npm run build`) also the scenario test (docs/cluster.md).
 */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/cluster/compose-topology.test.ts', '<rootDir>/test/cluster/scenario.test.ts'],
  testTimeout: 30000,
};
