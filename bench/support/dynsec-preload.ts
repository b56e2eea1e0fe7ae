import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deviceRole } from '../../gateway/mqtt/broker-credentials';

/**
 * Adds `count` device clients, each with its own role as gateway/mqtt/broker-credentials.ts makes
 * it (`deviceRole`; no password: none of them logs in), to the dynamic security JSON in `dataDir` while its
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
    const role = deviceRole(topicRoot, id);
    roles.push(role);
    clients.push({ username: id, roles: [{ rolename: role.rolename }] });
  }
  await writeFile(file, JSON.stringify({ ...config, clients, roles }), { mode: 0o600 });
}
