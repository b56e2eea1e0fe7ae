import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Adds `count` device clients, each with its own role as gateway/mqtt/broker-credentials.ts makes
 * them (no password: none of them logs in), to the dynamic security JSON in `dataDir` while its
 * broker is stopped: the baseline starts from a broker that knows that many accounts without
 * paying the square of the count to get there.
 */
export async function preloadDynsec(dataDir: string, count: number, topicRoot: string): Promise<void> {
  const file = join(dataDir, 'dynamic-security.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as { clients?: unknown[]; roles?: unknown[] };
  const clients = config.clients ?? [];
  const roles = config.roles ?? [];
  for (let i = 0; i < count; i++) {
    const id = `preloaded-${i.toString().padStart(8, '0')}`;
    const base = `${topicRoot}/${id}`;
    const allow = (acltype: string, topic: string) => ({ acltype, topic, priority: 1, allow: true });
    roles.push({
      rolename: `dds-device-${id}`,
      acls: [
        allow('publishClientSend', `${base}/pin/+`),
        allow('publishClientSend', `${base}/status`),
        allow('publishClientSend', `${base}/info`),
        allow('publishClientSend', `${base}/ack`),
        allow('publishClientSend', `${base}/ota/status`),
        allow('subscribePattern', `${base}/pin/+/set`),
        allow('publishClientReceive', `${base}/pin/+/set`),
        allow('subscribePattern', `${base}/ota`),
        allow('publishClientReceive', `${base}/ota`),
      ],
    });
    clients.push({ username: id, roles: [{ rolename: `dds-device-${id}` }] });
  }
  await writeFile(file, JSON.stringify({ ...config, clients, roles }), { mode: 0o600 });
}
