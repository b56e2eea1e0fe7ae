/**
 * Data-read bench (issue 5): one pin holding a day of per-second points (86,400), read back
 * through GET /api/v1/data/{deviceId}/{pin} raw, aggregated and as CSV, against the service in its
 * own process. Prints a table of best and median times; asserts nothing about them.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { keys } from '../common/redis-keys';
import { createAccount, createDevices, type BenchAccount } from './support/api';
import { startBackends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { DAY_MS, daySeries, writeDirect, type SeriesPoint } from './support/day-series';
import { envInt } from './support/env';
import { summarizeLog } from './support/log-summary';
import { machineLine } from './support/machine';
import { longestScriptsMs, startCommandLog } from './support/redis-script-time';
import { startService } from './support/service-process';
import { ms, printRows, printTable } from './support/stats';
import { timedGet } from './support/timed-get';

const PIN_NUMBER = 1;
const PIN = `V${PIN_NUMBER}`;
const BULK_MAX = 1000;

interface Query {
  label: string;
  params: Record<string, string>;
}

function queries(): Query[] {
  const list: Query[] = [
    { label: 'raw, limit 1000', params: { limit: '1000' } },
    { label: 'raw, limit 100000', params: { limit: '100000' } },
    { label: 'raw, limit 100000, CSV', params: { limit: '100000', format: 'csv' } },
  ];
  for (const interval of ['1m', '5m', '1h', '1d']) {
    for (const aggregate of ['avg', 'min', 'max', 'sum']) {
      list.push({ label: `${aggregate} ${interval}`, params: { aggregate, interval, limit: '100000' } });
    }
  }
  list.push({ label: 'avg 1m, CSV', params: { aggregate: 'avg', interval: '1m', limit: '100000', format: 'csv' } });
  return list;
}

/** Points in a response: JSON `data.points`, or CSV lines after the header. */
function pointCount(body: string, csv: boolean): number {
  if (csv) return body.split('\n').filter((line) => line !== '').length - 1;
  return (JSON.parse(body) as { data: { points: unknown[] } }).data.points.length;
}

/** Writes the oldest `count` points through POST /bulk (1000 a call); returns readings per second. */
async function writeBulk(account: BenchAccount, deviceId: string, points: readonly SeriesPoint[]): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < points.length; start += BULK_MAX) {
    const readings = points
      .slice(start, start + BULK_MAX)
      .map((p) => ({ pin: PIN_NUMBER, value: p.value, timestamp: new Date(p.ms).toISOString() }));
    await account.call('POST', `/api/v1/data/${deviceId}/bulk`, { readings });
  }
  return (points.length * 1000) / (performance.now() - started);
}

async function main(cleanup: Cleanup): Promise<void> {
  const runs = envInt('BENCH_RUNS', 5);
  const bulkCount = envInt('BENCH_BULK_READINGS', 1000);
  process.stdout.write(`data-read bench: one pin, 86,400 points (one a second, the last 24 h), ${runs} runs per query\n${machineLine()}\n`);
  const backends = await startBackends(cleanup);
  const redis = new Redis(backends.redisUrl, { connectionName: 'bench-writer' });
  cleanup.add('redis writer', async () => void redis.disconnect());
  const service = await startService(backends, cleanup);
  const account = await createAccount(service.baseUrl);
  const [deviceId = ''] = await createDevices(account, 1);

  const endMs = Math.floor(Date.now() / 1000) * 1000;
  const series = daySeries(endMs);
  const viaHttp = series.slice(0, Math.min(bulkCount, series.length));
  const bulkRate = await writeBulk(account, deviceId, viaHttp);
  const directStart = performance.now();
  await writeDirect(redis, deviceId, PIN, series.slice(viaHttp.length));
  const directMs = performance.now() - directStart;
  const stored = await redis.zcard(keys.pinHistory(deviceId, PIN));
  printRows('\nwriting the day', [
    ['POST /bulk (HTTP)', `${viaHttp.length} readings at ${bulkRate.toFixed(0)} readings/s (86,400 would take ${(86_400 / bulkRate / 60).toFixed(1)} min)`],
    ['straight to Redis', `${series.length - viaHttp.length} points in ${ms(directMs)} (same member format, ZADD of 5000)`],
    ['stored', `${stored} points${stored === series.length ? '' : ` (expected ${series.length})`}`],
  ]);

  const window = { from: new Date(endMs - DAY_MS).toISOString(), to: new Date(endMs).toISOString() };
  const rows: string[][] = [];
  await startCommandLog(redis);
  for (const query of queries()) {
    const params = new URLSearchParams({ ...window, ...query.params });
    const timing = await timedGet(`${service.baseUrl}/api/v1/data/${deviceId}/${PIN_NUMBER}?${params}`, account.token, runs);
    const points = pointCount(timing.body, query.params.format === 'csv');
    const scriptMs = await longestScriptsMs(redis, runs);
    rows.push([query.label, String(points), `${(timing.bytes / 1024).toFixed(0)} KiB`, ms(timing.bestMs), ms(timing.medianMs), ms(scriptMs)]);
  }
  process.stdout.write(`\nGET /api/v1/data/{deviceId}/${PIN_NUMBER} over the whole day (service pid ${service.pid})\n`);
  printTable(['query', 'points', 'size', 'best', 'median', 'Redis script (median)'], rows);
  process.stdout.write('Redis script: time the read script held Redis, which serves no other client meanwhile\n');
  const exit = await service.stop();
  printRows('\nservice log (LOG_LEVEL=warn), start to stop', [
    ['exit on SIGTERM', exit],
    ...(await summarizeLog(service.logFile)).map((line): [string, string] => ['', line]),
  ]);
  process.stdout.write(`${machineLine()}\n`);
}

if (require.main === module) void runBench('data-read', main);
