/**
 * One short scenario of the cluster harness (docs/cluster.md) as a test: the deployment as
 * separate hosts (network namespaces), a gateway SIGKILLed, then (while it is down) the Redis
 * master of most devices SIGKILLed, the gateway started after the failover; every check of the
 * table must pass.
 *
 * Part of `npm test` through `npm run test:cluster`, after the main jest run (so the cluster's 15
 * hosts never compete for the CPU with the shared test servers): that script compiles the tree the
 * hosts run (dist/), then runs this file with its own jest config, which starts no shared server.
 * Skipped, with the reason printed, when not root or when `ip netns` is unusable here.
 */
import { Cluster } from '../../scripts/cluster/cluster';
import { cannotRunHere } from '../../scripts/cluster/net';
import { runScenario } from '../../scripts/cluster/run-scenario';
import { scenarioNamed } from '../../scripts/cluster/scenarios';

const skip = (reason: string): void => void process.stdout.write(`test/cluster/scenario.test.ts skipped: ${reason}\n`);

/** Not root: decided before the suite (a skipped suite says so in jest's summary). */
const notRoot = process.getuid?.() !== 0 ? 'the cluster harness needs root (network namespaces, bridges, veths)' : null;
if (notRoot) skip(notRoot);

(notRoot ? describe.skip : describe)('the cluster harness: a gateway killed, then a Redis master killed', () => {
  let cluster: Cluster | null = null;
  const lines: string[] = [];
  const say = (line: string): void => void lines.push(line);

  beforeAll(async () => {
    // Root, yet `ip netns` may be unusable (a container without the privilege): said, and the test passes empty.
    const blocked = await cannotRunHere();
    if (blocked) return skip(blocked);
    cluster = await Cluster.start(say);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('keeps every promise of the table (values once, status, alarms, notifications, commands, live views, readiness)', async () => {
    if (!cluster) return;
    const result = await runScenario(cluster, scenarioNamed('gateway-then-master'), say);
    process.stdout.write(`${lines.join('\n')}\n${result.table}\n`);
    expect(result.failed.map((row) => `${row.check}: ${row.figures}`)).toEqual([]);
  }, 180_000);
});
