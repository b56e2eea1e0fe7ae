/**
 * The baseline of bench/simple-update: a bare Express handler for GET /update that does the
 * Redis write of a simple update (latest value as JSON and a history point, one MULTI) and
 * nothing else: no auth, no rate limit, no fan-out, no delivery. Forked by the bench with
 * REDIS_URL and BASELINE_PORT; tells the parent `ready` over IPC once it listens.
 */
import express from 'express';
import { Redis } from 'ioredis';
import { keys } from '../common/redis-keys';
import { baselineHistoryKey } from './support/baseline-protocol';

const redisUrl = process.env.REDIS_URL;
const port = Number(process.env.BASELINE_PORT);
if (!redisUrl || !Number.isInteger(port)) throw new Error('REDIS_URL and BASELINE_PORT are required');

const redis = new Redis(redisUrl, { connectionName: 'bench-simple-baseline', enableAutoPipelining: true });
const app = express();
app.disable('x-powered-by');

app.get('/update', async (req, res) => {
  const { device, pin, value } = req.query;
  if (typeof device !== 'string' || typeof pin !== 'string' || typeof value !== 'string') {
    res.status(400).json({ success: false });
    return;
  }
  const now = Date.now();
  await redis
    .multi()
    .hset(keys.devicePins(device), pin, JSON.stringify({ value, updatedAt: new Date(now).toISOString() }))
    .zadd(baselineHistoryKey(device, pin), now, `${now}:${value}`)
    .exec();
  res.json({ success: true, pin, value, delivered: false });
});

app.listen(port, '127.0.0.1', () => process.send?.({ type: 'ready' }));

// Exit normally on the bench's SIGTERM, so that a CPU profile (BENCH_CPU_PROFILE_DIR) is written.
process.once('SIGTERM', () => process.exit(0));
