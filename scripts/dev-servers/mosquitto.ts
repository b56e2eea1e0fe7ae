import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectAsync, type MqttClient } from 'mqtt';
import { sendDynsecCommands, serviceAccountCommands } from './dynsec';
import { onFreePort } from './free-port';
import { findDynsecPlugin, findMosquitto, mosquittoConf } from './mosquitto-config';
import { bootServer, poll, spawnServer } from './server-process';

export interface MosquittoServer {
  url: string;
  serviceUsername: string;
  servicePassword: string;
  dynsecUsername: string;
  dynsecPassword: string;
  pid: number;
  stop(): Promise<void>;
  /** After `stop`, the same broker again: same port, config and accounts (the plugin's JSON). */
  restart(): Promise<MosquittoServer>;
}

const SERVICE_ROLE = 'service';
const SERVICE_USERNAME = 'dds-service';
const DYNSEC_USERNAME = 'dynsec-admin';

const randomPassword = (): string => randomBytes(18).toString('base64url');

function connectOnce(url: string, username: string, password: string): Promise<MqttClient> {
  return connectAsync(url, { username, password, reconnectPeriod: 0, connectTimeout: 2000 }, false);
}

/**
 * A throw-away Mosquitto with the dynamic security plugin on a free port: anonymous clients are
 * refused; the plugin's admin and a `dds-service` client (role `service`: every topic) get random
 * passwords. The config, the plugin's JSON and the log stay in a fresh directory under `dir`.
 * `maxQueuedMessages`: see mosquittoConf.
 */
export async function startMosquitto(options: { dir: string; maxQueuedMessages?: number | null }): Promise<MosquittoServer> {
  const workDir = await mkdtemp(join(options.dir, 'mosquitto-'));
  const dynsecFile = join(workDir, 'dynamic-security.json');
  const confFile = join(workDir, 'mosquitto.conf');
  const dynsecPassword = randomPassword();
  const servicePassword = randomPassword();
  await promisify(execFile)('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, DYNSEC_USERNAME, dynsecPassword]).catch(
    (e: Error) => {
      throw new Error(`mosquitto_ctrl dynsec init failed: ${e.message}; run \`npm run setup\``);
    },
  );
  const run = async (port: number, firstBoot: boolean): Promise<MosquittoServer> => {
    if (firstBoot) {
      await writeFile(confFile, mosquittoConf({ port, plugin: findDynsecPlugin(), dynsecFile, maxQueuedMessages: options.maxQueuedMessages }), { mode: 0o600 });
    }
    const url = `mqtt://127.0.0.1:${port}`;
    const server = await spawnServer('mosquitto', findMosquitto(), ['-c', confFile], join(workDir, 'mosquitto.log'));
    await bootServer(server, async () => {
      if (firstBoot) {
        const admin = await poll(server, () => connectOnce(url, DYNSEC_USERNAME, dynsecPassword), 10_000);
        try {
          await sendDynsecCommands(admin, serviceAccountCommands(SERVICE_ROLE, SERVICE_USERNAME, servicePassword));
        } finally {
          await admin.endAsync();
        }
      }
      const service = await poll(server, () => connectOnce(url, SERVICE_USERNAME, servicePassword), 10_000);
      await service.endAsync();
    });
    return {
      url,
      serviceUsername: SERVICE_USERNAME,
      servicePassword,
      dynsecUsername: DYNSEC_USERNAME,
      dynsecPassword,
      pid: server.pid,
      stop: () => server.stop(),
      restart: () => run(port, false),
    };
  };
  return onFreePort((port) => run(port, true));
}
