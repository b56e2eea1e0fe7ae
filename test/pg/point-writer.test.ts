import { randomUUID } from 'node:crypto';
import { createPointWriter } from '../../gateway/history/point-writer';
import { migrate } from '../../store/pg/migrate';
import { pointRow, type StreamPoint } from '../../store/pg/persist-points';
import type { Pool } from '../../store/pg/pool';
import { freshDatabase } from './fresh-database';

/** `n` points of one new device on V1, one a millisecond, with stream ids of their own. */
function points(n: number, deviceId: string = randomUUID()): StreamPoint[] {
  const at = Date.now();
  return Array.from({ length: n }, (_, i) => ({ entryId: `${at + i}-0`, deviceId, pin: 'V1', ms: at + i, value: String(i) }));
}

describe("the point writer shared by a node's persisters", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: Pool;
  /** Statements sent: each takes a connection from the pool once. */
  let statements = 0;
  beforeAll(async () => {
    db = await freshDatabase();
    pool = db.pool();
    await migrate(pool);
    pool.on('acquire', () => (statements += 1));
  });
  afterAll(() => db.drop());
  beforeEach(() => (statements = 0));

  const stored = async (deviceIds: string[]): Promise<number> =>
    Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM points WHERE device_id = ANY($1::uuid[])', [deviceIds])).rows[0]?.n);

  it('writes the batches of several shards handed over together in one statement', async () => {
    const writer = createPointWriter(pool);
    const batches = [points(2), points(3), points(1)];
    await Promise.all(batches.map((batch) => writer.write(batch.map(pointRow))));
    expect(statements).toBe(1);
    expect(await stored(batches.map((b) => b[0]?.deviceId ?? ''))).toBe(6);
  });

  it('fails only the batch PostgreSQL refuses; the others in its statement are stored', async () => {
    const writer = createPointWriter(pool);
    const good = points(2);
    const refused = points(1).map((p) => ({ ...p, deviceId: 'not-a-device-id' }));
    const [wrote, failed] = await Promise.allSettled([writer.write(good.map(pointRow)), writer.write(refused.map(pointRow))]);
    expect(wrote.status).toBe('fulfilled');
    expect(failed.status).toBe('rejected');
    expect(await stored([good[0]?.deviceId ?? ''])).toBe(2);
  });

  it('puts no more than its batch size in one statement', async () => {
    const writer = createPointWriter(pool, 4);
    const [first, second, large] = [points(3), points(3), points(9)];
    await Promise.all([first, second, large].map((batch) => writer.write(batch.map(pointRow))));
    expect(statements).toBe(1 + 1 + 3); // 3 | 3 | 9 split as 4 + 4 + 1
    expect(await stored([first, second, large].map((b) => b[0]?.deviceId ?? ''))).toBe(15);
  });
});
