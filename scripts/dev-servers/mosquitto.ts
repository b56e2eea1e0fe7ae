import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectAsync, type MqttClient } from 'mqtt';
import { sendDynsecCommands, serviceAccountCommands } from './dynsec';
import { freePort, onFreePort } from './free-port';
import { keptPasswords, newPasswords } from './mosquitto-accounts';
import { findDeviceAuthPlugin, findDynsecPlugin, findMosquitto, mosquittoConf } from './mosquitto-config';
import { bootServer, poll, spawnServer, type ServerOwner } from './server-process';

export interface MosquittoServer {
  url: string;
  /** With `tls`: `mqtts://localhost:{port}`, the TLS listener devices use. */
  tlsUrl?: string;
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

function connectOnce(url: string, username: string, password: string): Promise<MqttClient> {
  return connectAsync(url, { username, password, reconnectPeriod: 0, connectTimeout: 2000 }, false);
}

export interface MosquittoOptions {
  dir: string;
  /** See mosquittoConf. */
  maxQueuedMessages?: number | null;
  /**
   * Keep config, the plugin's JSON (every account), the log and the two passwords
   * (`passwords.json`, 0600) in this directory, made when missing: a broker started on it again
   * has the accounts of the last one (npm start).
   */
  dataDir?: string;
  /** Tie the server to this process's life (spawnServer). */
  owner?: ServerOwner;
  /** Keep sessions and their queues on disk across a restart (mosquittoConf). */
  persistent?: boolean;
  /** A second listener, MQTT over TLS on a free port, presenting this certificate (mosquittoConf). */
  tls?: { certFile: string; keyFile: string };
  /**
   * Devices log in against these Redis servers (host:port) through the device plugin
   * (docs/broker-credentials.md), under this topic root (`+`: any); without it, only accounts of
   * the dynamic security plugin log in.
   */
  deviceAuth?: { redis: string[]; topicRoot: string };
}

async function initDynsec(dynsecFile: string, password: string): Promise<void> {
  await promisify(execFile)('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, DYNSEC_USERNAME, password]).catch((e: Error) => {
    throw new Error(`mosquitto_ctrl dynsec init failed: ${e.message}; run \`npm run setup\``);
  });
}

/** True when the plugin's JSON has a client of that name (the plugin rewrites the file on every change). */
async function hasClient(dynsecFile: string, username: string): Promise<boolean> {
  const saved = JSON.parse(await readFile(dynsecFile, 'utf8')) as { clients?: { username: string }[] };
  return (saved.clients ?? []).some((client) => client.username === username);
}

/**
 * A Mosquitto with the dynamic security plugin on a free port: anonymous clients are refused;
 * the plugin's admin and a `dds-service` client (role `service`: every topic) get random
 * passwords. The config, the plugin's JSON and the log stay in a fresh directory under `dir`
 * (throw-away), or in `dataDir` (kept, with the passwords).
 */
export async function startMosquitto(options: MosquittoOptions): Promise<MosquittoServer> {
  const workDir = options.dataDir ?? (await mkdtemp(join(options.dir, 'mosquitto-')));
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  const dynsecFile = join(workDir, 'dynamic-security.json');
  const confFile = join(workDir, 'mosquitto.conf');
  const passwords = options.dataDir ? await keptPasswords(join(workDir, 'passwords.json'), dynsecFile) : newPasswords();
  if (!existsSync(dynsecFile)) await initDynsec(dynsecFile, passwords.dynsec);
  const run = async (port: number, tlsPort?: number): Promise<MosquittoServer> => {
    await writeFile(
      confFile,
      mosquittoConf({
        port,
        plugin: findDynsecPlugin(),
        dynsecFile,
        maxQueuedMessages: options.maxQueuedMessages,
        ...(options.persistent ? { persistenceDir: workDir } : {}),
        ...(options.tls && tlsPort ? { tls: { port: tlsPort, ...options.tls } } : {}),
        ...(options.deviceAuth ? { deviceAuth: { ...options.deviceAuth, plugin: findDeviceAuthPlugin(), admin: DYNSEC_USERNAME } } : {}),
      }),
      { mode: 0o600 },
    );
    const url = `mqtt://127.0.0.1:${port}`;
    const server = await spawnServer('mosquitto', findMosquitto(), ['-c', confFile], join(workDir, 'mosquitto.log'), options.owner);
    await bootServer(server, async () => {
      if (!(await hasClient(dynsecFile, SERVICE_USERNAME))) {
        const admin = await poll(server, () => connectOnce(url, DYNSEC_USERNAME, passwords.dynsec), 10_000);
        try {
          await sendDynsecCommands(admin, serviceAccountCommands(SERVICE_ROLE, SERVICE_USERNAME, passwords.service));
        } finally {
          await admin.endAsync();
        }
      }
      const service = await poll(server, () => connectOnce(url, SERVICE_USERNAME, passwords.service), 10_000);
      await service.endAsync();
    });
    return {
      url,
      ...(tlsPort ? { tlsUrl: `mqtts://localhost:${tlsPort}` } : {}),
      serviceUsername: SERVICE_USERNAME,
      servicePassword: passwords.service,
      dynsecUsername: DYNSEC_USERNAME,
      dynsecPassword: passwords.dynsec,
      pid: server.pid,
      stop: () => server.stop(),
      restart: () => run(port, tlsPort),
    };
  };
  return onFreePort(async (port) => run(port, options.tls ? await freePort() : undefined));
}
