import { migrate } from '../../store/pg/migrate';
import type { Pool } from '../../store/pg/pool';
import { persistPoints } from '../../store/pg/persist-points';
import { dropExpiredPartitions, ensurePointPartitions, PARTITION_DAYS_AHEAD } from '../../store/pg/partitions';
import { freshDatabase } from './fresh-database';

const DEVICE = '7b0c8a52-2f4e-4a57-9a53-0b7f3f4c2a10';
const DAY_MS = 86_400_000;
const dayName = (date: Date): string => `points_${date.toISOString().slice(0, 10).replaceAll('-', '')}`;

async function partitionOf(pool: Pool, ts: Date): Promise<string | undefined> {
  const { rows } = await pool.query<{ part: string }>(
    'SELECT tableoid::regclass::text AS part FROM points WHERE device_id = $1 AND ts = $2',
    [DEVICE, ts.toISOString()],
  );
  return rows[0]?.part;
}

describe('points partitions', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: Pool;
  beforeAll(async () => {
    db = await freshDatabase();
    pool = db.pool();
    await migrate(pool);
  });
  afterAll(() => db.drop());

  it("two nodes at once create each day's partition once, ahead of time, and a point lands in its own day", async () => {
    const now = new Date();
    const second = db.pool();
    const [made, madeToo] = await Promise.all([ensurePointPartitions(pool, 30, now), ensurePointPartitions(second, 30, now)]);
    expect(made + madeToo).toBe(30 + PARTITION_DAYS_AHEAD + 1);
    expect(await ensurePointPartitions(pool, 30, now)).toBe(0);
    for (let day = 0; day <= PARTITION_DAYS_AHEAD; day += 1) {
      const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [
        dayName(new Date(now.getTime() + day * DAY_MS)),
      ]);
      expect(rows[0]?.found).toBe(dayName(new Date(now.getTime() + day * DAY_MS)));
    }
    const inTwoDays = new Date(now.getTime() + 2 * DAY_MS);
    await pool.query('INSERT INTO points (device_id, pin, ts, value, num) VALUES ($1, $2, $3, $4, $5), ($1, $2, $3, $4, $5)', [
      DEVICE,
      'V1',
      inTwoDays.toISOString(),
      '21.5',
      21.5,
    ]);
    expect(await partitionOf(pool, inTwoDays)).toBe(dayName(inTwoDays));
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM points WHERE device_id = $1 AND ts = $2', [
      DEVICE,
      inTwoDays.toISOString(),
    ]);
    expect(Number(rows[0]?.n)).toBe(2);
  });

  it('a point beyond the partitions waits in the default one and moves when its day is created', async () => {
    const later = new Date(Date.now() + 20 * DAY_MS);
    await pool.query('INSERT INTO points (device_id, pin, ts, value) VALUES ($1, $2, $3, $4)', [DEVICE, 'V2', later.toISOString(), 'on']);
    expect(await partitionOf(pool, later)).toBe('points_default');
    await ensurePointPartitions(pool, 0, later);
    expect(await partitionOf(pool, later)).toBe(dayName(later));
  });

  it('retention drops a whole partition older than HISTORY_RETENTION_DAYS, and the rollups of its day', async () => {
    const old = new Date(Date.now() - 40 * DAY_MS);
    await ensurePointPartitions(pool, 0, old);
    await persistPoints(pool, [{ entryId: `${old.getTime()}-0`, deviceId: DEVICE, pin: 'V3', ms: old.getTime(), value: '1' }]);
    const rollups = async (): Promise<number> =>
      Number(
        (await pool.query<{ n: string }>("SELECT count(*) AS n FROM rollup_1m WHERE device_id = $1 AND pin = 'V3'", [DEVICE])).rows[0]?.n,
      );
    expect(await rollups()).toBe(1);
    expect(await partitionOf(pool, old)).toBe(dayName(old));
    const dropped = await dropExpiredPartitions(pool, 30);
    expect(dropped).toContain(dayName(old));
    const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [dayName(old)]);
    expect(rows[0]?.found).toBeNull();
    expect(await partitionOf(pool, old)).toBeUndefined();
    expect(await rollups()).toBe(0);
    const recent = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [dayName(new Date())]);
    expect(recent.rows[0]?.found).toBe(dayName(new Date()));
  });
});
