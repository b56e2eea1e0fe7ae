import { Cluster } from 'ioredis';
import type { Redis } from '../../common/redis';

/**
 * The keys matching `pattern`, read with SCAN, a thousand at a time, on every master of a Cluster.
 * Not KEYS: on the run's shared Redis, which holds every test file's keys (an import alone makes
 * 10,000 devices), one KEYS blocked Redis long enough for other files' gateways to time out
 * (their 1 s command deadline) and answer 503.
 */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return found;
}
