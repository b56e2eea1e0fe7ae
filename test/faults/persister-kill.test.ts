/**
 * A gateway node SIGKILLed while its history persister is in the middle of a batch (its INSERT
 * waiting on a lock this test holds), then restarted under the same name: the batch the dead
 * node's session still commits is written again by the restarted one, and every point and every
 * rollup counts each reading exactly once.
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

it('counts every point once in points and rollups after a persister is killed mid-batch and restarted', async () => {
  const first = await startGatewayProcess({ DATABASE_URL: postgres.env.DATABASE_URL as string });
  nodes.push(first);
  const owner = await registerUser(first.request);
  const projectId = (await createProject(first.request, owner)).id;
  const device = await createDevice(first.request, owner, projectId);
  const start = Date.now() - 2 * 3_600_000;
  const readings = Array.from({ length: 1000 }, (_, i) => ({ pin: 4, value: String((i * 13) % 29), timestamp: new Date(start + i * 3_001).toISOString() }));

  // The persister's next batch waits on this lock, inside its statement.
  await db.query('BEGIN');
  await db.query('LOCK TABLE rollup_1m IN SHARE ROW EXCLUSIVE MODE');
  const bulk = await first.request('POST', `/api/v1/data/${device.id}/bulk`, { token: owner.token, body: { readings } });
  expect(bulk.status).toBe(200);
  await eventually(async () => {
    const waiting = await rows(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [`dds-gateway-${first.env.NODE_ID}`]);
    expect(waiting).toHaveLength(1);
  });
  first.child.kill('SIGKILL');
  if (first.exitCode() === undefined) await once(first.child, 'exit');
  // The dead node's session goes on: its batch commits, and the stream never heard of it.
  await db.query('ROLLBACK');
  await eventually(async () => expect((await rows('SELECT 1 FROM points WHERE device_id = $1', [device.id])).length).toBeGreaterThan(0));

  const again = await startGatewayProcess(first.env);
  nodes.push(again);
  const points = await eventually(async () => {
    const res = await again.request('GET', `/api/v1/data/${device.id}/4?from=${new Date(start - 1).toISOString()}&limit=5000`, { token: owner.token });
    expect(res.status).toBe(200);
    return res.body.data.points as { value: number }[];
  }, 30_000, 250);
  expect(points).toHaveLength(readings.length);

  const [stored] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM points WHERE device_id = $1', [device.id]);
  expect(stored?.n).toBe(readings.length);
  const [rolled] = await rows<{ n: number; sum: number }>('SELECT sum(count)::int AS n, sum(sum)::float8 AS sum FROM rollup_1m WHERE device_id = $1', [device.id]);
  expect(rolled).toEqual({ n: readings.length, sum: readings.reduce((s, r) => s + Number(r.value), 0) });
  const rollups = await rows(`SELECT minute, count::int, sum, min, max FROM rollup_1m WHERE device_id = $1 ORDER BY minute`, [device.id]);
  const recomputed = await rows(
    `SELECT date_trunc('minute', ts) AS minute, count(*)::int AS count, sum(num) AS sum, min(num) AS min, max(num) AS max
     FROM points WHERE device_id = $1 GROUP BY 1 ORDER BY 1`,
    [device.id],
  );
  expect(rollups).toEqual(recomputed);
  await again.stop();
}, 120_000);
