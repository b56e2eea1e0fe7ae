import { Redis } from 'ioredis';

/** One Redis connection; auto-pipelining batches concurrent commands into one round trip. */
export function createRedis(url: string, connectionName: string): Redis {
  return new Redis(url, {
    connectionName,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 2,
    lazyConnect: false,
  });
}

export type { Redis };
