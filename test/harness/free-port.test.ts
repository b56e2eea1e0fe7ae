import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { onFreePort, startRedis, type RedisServer } from '../../scripts/dev-servers';
import { TEMP_DIR_PREFIX } from './state';

/** A port held by this process, as another server starting beside the harness's would hold it. */
function holdPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen({ port: 0, host: '127.0.0.1' }, () => resolve({ port: (server.address() as { port: number }).port, server }));
  });
}

describe('starting a test server on a free port', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), TEMP_DIR_PREFIX));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('starts on another port when the one picked was taken before the server bound it', async () => {
    const held = await holdPort();
    const tried: number[] = [];
    let redis: RedisServer | undefined;
    try {
      redis = await onFreePort((port) => {
        tried.push(tried.length === 0 ? held.port : port);
        return startRedis({ dir, port: tried.at(-1) });
      });
      const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
      try {
        expect(await client.ping()).toBe('PONG');
      } finally {
        client.disconnect();
      }
      expect(tried).toHaveLength(2);
      expect(new URL(redis.url).port).toBe(String(tried[1]));
    } finally {
      await redis?.stop();
      held.server.close();
    }
  });

  it('does not try again when the server failed for another reason', async () => {
    let attempts = 0;
    await expect(
      onFreePort(async () => {
        attempts += 1;
        throw new Error('redis-server did not start: exited early (exit code 1)');
      }),
    ).rejects.toThrow('exited early');
    expect(attempts).toBe(1);
  });
});
