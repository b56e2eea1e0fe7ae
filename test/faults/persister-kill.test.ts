/**
 * A gateway node SIGKILLed while its history persister is in the middle of a batch (its INSERT
 * waiting on a lock this test holds): the batch the dead node's session still commits is written
 * again, by the node restarted under the same name or by another node taking it over, and every
 * point and every rollup counts each reading exactly once.
 */
import { once } from 'node:events';
import { Client } from 'pg';
import { createDevice, createProject, registerUser } from '../helpers/fixtures';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';
import { ownPostgres, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { eventually } from '../helpers/wait';

let postgres: RestartableServer;
let db: Client;
const nodes: GatewayProcess[] = [];

beforeAll(async () => {
  postgres = await ownPostgres();
  db = new Client({ connectionString: postgres.env.DATABASE_URL });
  await db.connect();
}, 60_000);

afterAll(async () => {
  for (const node of nodes) if (node.exitCode() === undefined) node.child.kill('SIGKILL');
  await db.end();
  await stopOwnServers();
});

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

interface Killed {
  owner: { token: string };
  deviceId: string;
  readings: { pin: number; value: string; timestamp: string }[];
  start: number;
  env: Record<string, string>;
}

/**
 * A gateway process that takes a bulk import, its persister stuck inside the batch's statement
 * (waiting on a lock this test holds), SIGKILLed; then the lock goes and the dead node's session
 * commits the batch, which the stream never hears of.
 */
async function killMidBatch(): Promise<Killed> {
  const node = await startGatewayProcess({ DATABASE_URL: postgres.env.DATABASE_URL as string });
  nodes.push(node);
  const owner = await registerUser(node.request);
  const projectId = (await createProject(node.request, owner)).id;
  const device = await createDevice(node.request, owner, projectId);
  const start = Date.now() - 2 * 3_600_000;
  const readings = Array.from({ length: 1000 }, (_, i) => ({
    pin: 4,
    value: String((i * 13) % 29),
    timestamp: new Date(start + i * 3_001).toISOString(),
  }));
  await db.query('BEGIN');
  await db.query('LOCK TABLE rollup_1m IN SHARE ROW EXCLUSIVE MODE');
  const bulk = await node.request('POST', `/api/v1/data/${device.id}/bulk`, { token: owner.token, body: { readings } });
  expect(bulk.status).toBe(200);
  await eventually(async () => {
    const waiting = await rows(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [
      `dds-gateway-${node.env.NODE_ID}`,
    ]);
    expect(waiting).toHaveLength(1);
  });
  node.child.kill('SIGKILL');
  if (node.exitCode() === undefined) await once(node.child, 'exit');
  await db.query('ROLLBACK');
  await eventually(async () => expect((await rows('SELECT 1 FROM points WHERE device_id = $1', [device.id])).length).toBeGreaterThan(0));
  return { owner, deviceId: device.id, readings, start, env: node.env };
}

/** Every reading is one point and counted once in the rollups, read through `request`. */
async function expectCountedOnce(request: GatewayProcess['request'], { owner, deviceId, readings, start }: Killed): Promise<void> {
  const points = await eventually(
    async () => {
      const res = await request('GET', `/api/v1/data/${deviceId}/4?from=${new Date(start - 1).toISOString()}&limit=5000`, {
        token: owner.token,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.points).toHaveLength(readings.length);
      return res.body.data.points as { value: number }[];
    },
    30_000,
    250,
  );
  expect(points.map((p) => p.value)).toEqual(readings.map((r) => Number(r.value)));
  const [stored] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM points WHERE device_id = $1', [deviceId]);
  expect(stored?.n).toBe(readings.length);
  const [rolled] = await rows<{ n: number; sum: number }>(
    'SELECT sum(count)::int AS n, sum(sum)::float8 AS sum FROM rollup_1m WHERE device_id = $1',
    [deviceId],
  );
  expect(rolled).toEqual({ n: readings.length, sum: readings.reduce((s, r) => s + Number(r.value), 0) });
  const rollups = await rows(`SELECT minute, count::int, sum, min, max FROM rollup_1m WHERE device_id = $1 ORDER BY minute`, [deviceId]);
  const recomputed = await rows(
    `SELECT date_trunc('minute', ts) AS minute, count(*)::int AS count, sum(num) AS sum, min(num) AS min, max(num) AS max
     FROM points WHERE device_id = $1 GROUP BY 1 ORDER BY 1`,
    [deviceId],
  );
  expect(rollups).toEqual(recomputed);
}

it('counts every point once in points and rollups after a persister is killed mid-batch and restarted', async () => {
  const killed = await killMidBatch();
  const again = await startGatewayProcess(killed.env);
  nodes.push(again);
  await expectCountedOnce(again.request, killed);
  await again.stop();
}, 120_000);

it('another node takes over the batch of a node that does not come back, counting it once', async () => {
  const killed = await killMidBatch();
  const other = await startGatewayProcess({ ...killed.env, NODE_ID: `other-${killed.env.NODE_ID}` });
  nodes.push(other);
  // The dead node's entries stay pending until idle for 10 s, then the other node claims them.
  await expectCountedOnce(other.request, killed);
  await other.stop();
}, 120_000);
