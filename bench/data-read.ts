/**
 * Data-read bench (issue 13): pin history in PostgreSQL, read back through
 * GET /api/v1/data/{deviceId}/{pin} raw, as CSV and aggregated (from the one-minute rollups),
 * against the service in its own process. Two pins: one point a second for a day (86,400) and one
 * every 10 s for 30 days (259,200). Also times bulk import through POST /data/{deviceId}/bulk
 * until every reading is in PostgreSQL, with the CPU each process spent per reading and the ratio
 * to the persister's batch write alone (the bare baseline, same run). Prints best and median times
 * of each read, the service's and PostgreSQL's CPU per read and the time Redis spent on it;
 * asserts nothing about them. BENCH_CPU_PROFILE_DIR=dir profiles the service (node --cpu-prof).
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createPgPool, type Pool } from '../store/pg/pool';
import { createAccount, createDevices, type BenchAccount } from './support/api';
import { startBackends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { DAY_MS, series, writeDirect, type SeriesPoint } from './support/day-series';
import { cpuSeconds, treeCpuSeconds, waitForQuiet } from './support/cpu';
import { envInt } from './support/env';
import { summarizeLog } from './support/log-summary';
import { machineLine } from './support/machine';
import { machineCpuMeter } from './support/machine-cpu';
import { redisBusyMicros } from './support/redis-busy';
import { startService } from './support/service-process';
import { median, ms, printRows, printTable } from './support/stats';
import { timedGet } from './support/timed-get';

const PIN_NUMBER = 1;
const PIN = `V${PIN_NUMBER}`;
const BULK_MAX = 1000;
const INTERVALS = ['1m', '5m', '1h', '1d'] as const;
const AGGREGATES = ['avg', 'min', 'max', 'sum'] as const;

interface Query {
  label: string;
  params: Record<string, string>;
}

function queries(window: { from: string; to: string }, lastDay: { from: string; to: string }): Query[] {
  const list: Query[] = [
    { label: 'raw, limit 1000', params: { ...window, limit: '1000' } },
    { label: 'raw CSV, whole (last) day', params: { ...lastDay, limit: '100000', format: 'csv' } },
  ];
  for (const interval of INTERVALS) {
    for (const aggregate of AGGREGATES)
      list.push({ label: `${aggregate} ${interval}`, params: { ...window, aggregate, interval, limit: '100000' } });
  }
  return list;
}

/** Points in a response: JSON `data.points`, or CSV lines after the header. */
function pointCount(body: string, csv: boolean): number {
  if (csv) return body.split('\n').filter((line) => line !== '').length - 1;
  return (JSON.parse(body) as { data: { points: unknown[] } }).data.points.length;
}

async function storedPoints(pool: Pool, deviceId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM points WHERE device_id = $1', [deviceId]);
  return rows[0]?.n ?? 0;
}

interface BulkFigures {
  answeredRate: number;
  persistedRate: number;
  /** CPU µs per reading of each process (PostgreSQL: all its backends) from the first POST until all are in PostgreSQL. */
  cpuPerReading: [string, number][];
}

/**
 * POSTs the points to /bulk, 1000 readings a call, `lanes` calls at a time; returns readings per
 * second answered, and per second until all are in PostgreSQL, and where the CPU went meanwhile.
 */
async function writeBulk(
  account: BenchAccount,
  pool: Pool,
  deviceId: string,
  points: readonly SeriesPoint[],
  lanes: number,
  processes: Record<string, () => number>,
): Promise<BulkFigures> {
  const cpuBefore = Object.entries(processes).map(([name, cpu]): [string, number] => [name, cpu()]);
  const machine = machineCpuMeter();
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < points.length) {
      const start = next;
      next += BULK_MAX;
      const readings = points
        .slice(start, start + BULK_MAX)
        .map((p) => ({ pin: PIN_NUMBER, value: p.value, timestamp: new Date(p.ms).toISOString() }));
      await account.call('POST', `/api/v1/data/${deviceId}/bulk`, { readings });
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  const answered = performance.now() - started;
  while ((await storedPoints(pool, deviceId)) < points.length) await new Promise((r) => setTimeout(r, 20));
  const persisted = performance.now() - started;
  const perReading = (seconds: number): number => (seconds * 1e6) / points.length;
  const cpuPerReading = cpuBefore.map(([name, before]): [string, number] => [name, perReading((processes[name]?.() ?? NaN) - before)]);
  cpuPerReading.push(['whole machine', perReading(((machine.since() / 100) * persisted) / 1000)]);
  return { answeredRate: (points.length * 1000) / answered, persistedRate: (points.length * 1000) / persisted, cpuPerReading };
}

/**
 * Times every query `runs` times, in rounds (each round runs every query once), so a burst of
 * other work on the machine, or the garbage a large answer leaves, falls on all queries alike
 * rather than on whichever ran next.
 */
async function readAll(
  baseUrl: string,
  token: string,
  redis: Redis,
  deviceId: string,
  runs: number,
  window: { from: string; to: string },
  lastDay: { from: string; to: string },
  cpu: { service: () => number; postgres: () => number },
): Promise<string[][]> {
  const list = queries(window, lastDay);
  const times = list.map((): number[] => []);
  const busy = list.map(() => 0);
  const serviceCpu = list.map(() => 0);
  const postgresCpu = list.map(() => 0);
  const last = list.map(() => ({ body: '', bytes: 0 }));
  for (let round = 0; round < runs; round += 1) {
    for (const [i, query] of list.entries()) {
      const params = new URLSearchParams(query.params);
      const busyBefore = await redisBusyMicros(redis);
      const [serviceBefore, postgresBefore] = [cpu.service(), cpu.postgres()];
      const timing = await timedGet(`${baseUrl}/api/v1/data/${deviceId}/${PIN_NUMBER}?${params}`, token, 1);
      serviceCpu[i] = (serviceCpu[i] ?? 0) + cpu.service() - serviceBefore;
      postgresCpu[i] = (postgresCpu[i] ?? 0) + cpu.postgres() - postgresBefore;
      busy[i] = (busy[i] ?? 0) + (await redisBusyMicros(redis)) - busyBefore;
      times[i]?.push(timing.bestMs);
      last[i] = timing;
    }
  }
  const perRead = (seconds: number | undefined): string => ms(((seconds ?? 0) * 1000) / runs);
  return list.map((query, i) => {
    const points = pointCount(last[i]?.body ?? '', query.params.format === 'csv');
    const own = times[i] ?? [];
    return [
      query.label,
      String(points),
      `${((last[i]?.bytes ?? 0) / 1024).toFixed(0)} KiB`,
      ms(Math.min(...own)),
      ms(median(own)),
      perRead(serviceCpu[i]),
      perRead(postgresCpu[i]),
      `${Math.round((busy[i] ?? 0) / runs)} µs`,
    ];
  });
}

async function main(cleanup: Cleanup): Promise<void> {
  const runs = envInt('BENCH_RUNS', 5);
  const bulkCount = envInt('BENCH_BULK_READINGS', 86_400);
  const lanes = envInt('BENCH_BULK_LANES', 4);
  process.stdout.write(
    `data-read bench: one pin at 1/s for a day (86,400 points), one at 1/10 s for 30 days (259,200), ${runs} runs per query\n${machineLine()}\n`,
  );
  const backends = await startBackends(cleanup);
  const redis = new Redis(backends.redisUrl, { connectionName: 'bench-observer' });
  cleanup.add('redis observer', async () => void redis.disconnect());
  const pool = createPgPool(backends.databaseUrl, 'bench-writer', { statementTimeoutMs: 300_000 });
  cleanup.add('postgres writer', () => pool.end());
  const service = await startService(backends, cleanup, { HISTORY_RETENTION_DAYS: '32' });
  const account = await createAccount(service.baseUrl);
  const [dayDevice = '', monthDevice = ''] = await createDevices(account, 2);

  const endMs = Math.floor(Date.now() / 1000) * 1000;
  const day = series(endMs, 86_400, 1000);
  const month = series(endMs, 259_200, 10_000);
  const viaHttp = day.slice(0, Math.min(bulkCount, day.length));
  const processes = {
    service: () => cpuSeconds(service.pid),
    Redis: () => cpuSeconds(backends.pids.redis),
    PostgreSQL: () => treeCpuSeconds(backends.pids.postgres),
    'bench client': () => cpuSeconds(process.pid),
  };
  // The service's own start (the twin worker bundling its workflows, the twins of the new devices)
  // is over before the import is timed.
  await waitForQuiet([service.pid]);
  const bulk = await writeBulk(account, pool, dayDevice, viaHttp, lanes, processes);
  const directStart = performance.now();
  await writeDirect(pool, dayDevice, PIN, day.slice(viaHttp.length));
  await writeDirect(pool, monthDevice, PIN, month);
  const directMs = performance.now() - directStart;
  const directCount = day.length - viaHttp.length + month.length;
  const directRate = (directCount * 1000) / directMs;
  printRows('\nwriting the data', [
    [
      'POST /bulk (HTTP)',
      `${viaHttp.length} readings, ${lanes} requests at a time: answered at ${bulk.answeredRate.toFixed(0)} readings/s, all in PostgreSQL at ${bulk.persistedRate.toFixed(0)} readings/s`,
    ],
    ['  CPU per reading', bulk.cpuPerReading.map(([name, micros]) => `${name} ${micros.toFixed(1)} µs`).join(', ')],
    [
      'straight to PostgreSQL',
      `${directCount} points in ${ms(directMs)}: ${directRate.toFixed(0)} points/s (the persister's batch write, 10,000 a transaction; the bare baseline)`,
    ],
    [
      '  bulk / baseline',
      `${(bulk.persistedRate / directRate).toFixed(2)} (all in PostgreSQL through HTTP, Redis and the persister, against the batch write alone)`,
    ],
    [
      'stored',
      `${await storedPoints(pool, dayDevice)} + ${await storedPoints(pool, monthDevice)} points (expected ${day.length} + ${month.length})`,
    ],
  ]);
  await pool.query('VACUUM ANALYZE points');
  await pool.query('VACUUM ANALYZE rollup_1m');

  const iso = (t: number): string => new Date(t).toISOString();
  const lastDay = { from: iso(endMs - DAY_MS), to: iso(endMs) };
  const readCpu = { service: processes.service, postgres: processes.PostgreSQL };
  const headers = ['query', 'points', 'size', 'best', 'median', 'service CPU', 'PostgreSQL CPU', 'Redis busy per read'];
  process.stdout.write(`\nGET /api/v1/data/{deviceId}/${PIN_NUMBER}: 86,400 points, the day (service pid ${service.pid})\n`);
  printTable(headers, await readAll(service.baseUrl, account.token, redis, dayDevice, runs, lastDay, lastDay, readCpu));
  process.stdout.write(`\nGET /api/v1/data/{deviceId}/${PIN_NUMBER}: 259,200 points, 30 days\n`);
  printTable(
    headers,
    await readAll(
      service.baseUrl,
      account.token,
      redis,
      monthDevice,
      runs,
      { from: iso(endMs - 30 * DAY_MS), to: iso(endMs) },
      lastDay,
      readCpu,
    ),
  );
  process.stdout.write(
    'service / PostgreSQL CPU: CPU time of the service process / all PostgreSQL backends per read (10 ms ticks summed over the runs)\n' +
      'Redis busy: time Redis spent executing commands (INFO commandstats) during the reads, divided by the reads\n',
  );
  const exit = await service.stop();
  printRows('\nservice log (LOG_LEVEL=warn), start to stop', [
    ['exit on SIGTERM', exit],
    ...(await summarizeLog(service.logFile)).map((line): [string, string] => ['', line]),
  ]);
  process.stdout.write(`${machineLine()}\n`);
}

if (require.main === module) void runBench('data-read', main);
