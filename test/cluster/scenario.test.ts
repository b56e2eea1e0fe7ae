/**
 * One short scenario of the cluster harness (docs/cluster.md) as a test: the deployment as
 * separate hosts (network namespaces), a gateway SIGKILLed, then (while it is down) the Redis
 * master of most devices SIGKILLed, the gateway started after the failover; every check of the
 * table must pass.
 *
 * NOT part of `npm test` yet: it runs only with CLUSTER_TEST=1, as root, on a built tree:
 *   npm run build && CLUSTER_TEST=1 npx jest -c test/cluster/jest.config.js test/cluster/scenario
 * Until the engine fixes of issue 41 land it fails, on the values stored twice after a master
 * failover and on a restarted gateway whose Socket.IO subscriber sits on a replica (/readyz 503
 * for good). Skipped, with the reason, when not enabled, not root, or `ip netns` is unusable.
 */
import { Cluster } from '../../scripts/cluster/cluster';
import { cannotRunHere } from '../../scripts/cluster/net';
import { runScenario } from '../../scripts/cluster/run-scenario';
import { scenarioNamed } from '../../scripts/cluster/scenarios';

/** Why it cannot run here, decided before the suite (a skipped suite says so in jest's summary). */
const reason =
  process.env.CLUSTER_TEST !== '1'
    ? 'set CLUSTER_TEST=1 to run it (docs/cluster.md): it builds a 15-host cluster on this machine'
    : process.getuid?.() !== 0
      ? 'the cluster harness needs root (network namespaces, bridges, veths)'
      : null;
if (reason) process.stdout.write(`test/cluster/scenario.test.ts skipped: ${reason}\n`);

(reason ? describe.skip : describe)('the cluster harness: a gateway killed, then a Redis master killed', () => {
  let cluster: Cluster | null = null;
  const lines: string[] = [];
  const say = (line: string): void => void lines.push(line);

  beforeAll(async () => {
    // `ip netns` may still be unusable (a container without the privilege): said, and the test passes empty.
    const blocked = await cannotRunHere();
    if (blocked) {
      process.stdout.write(`test/cluster/scenario.test.ts skipped: ${blocked}\n`);
      return;
    }
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
