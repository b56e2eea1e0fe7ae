/**
 * The cluster's backends, each on its own host: six Redis nodes joined as a Redis Cluster of
 * three masters with a replica each, Mosquitto with dynamic security (its config is
 * deploy/mosquitto/mosquitto.conf, the compose broker's, with this host's paths), PostgreSQL for
 * history, and the Temporal dev server.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { connectAsync } from 'mqtt';
import { Client } from 'pg';
import { sendDynsecCommands, serviceAccountCommands } from '../dev-servers/dynsec';
import { findExecutable, isExecutable } from '../dev-servers/find-executable';
import { findDeviceAuthPlugin, findDynsecPlugin, findMosquitto } from '../dev-servers/mosquitto-config';
import { ensureTemporalCli } from '../temporal-cli';
import { HostProcess } from './host-process';
import { PROJECT_ROOT, waitFor } from './wait';
import { hostNamed, hostsOf, PORTS, REDIS_MASTERS, REDIS_NODES, REDIS_REPLICAS_PER_MASTER, REDIS_SETTINGS } from './topology';

const run = promisify(execFile);

export async function redisCli(host: string, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-h', host, '-p', String(PORTS.redis), ...args], { timeout: 10_000 })).stdout;
}

/** One redis-server per Redis host, on its data address. */
export function redisProcesses(dir: string, logDir: string): HostProcess[] {
  return hostsOf('redis').map((host) => {
    const nodeDir = join(dir, host.name);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    const args = ['--port', String(PORTS.redis), ...REDIS_SETTINGS, '--bind', host.data as string, '--dir', nodeDir];
    return new HostProcess(host, host.name, { command: 'redis-server', args }, join(logDir, `${host.name}.log`));
  });
}

/** `redis-cli --cluster create … --cluster-replicas 1`, then waits until every node says the cluster is ok with every replica attached. */
export async function createRedisCluster(): Promise<void> {
  const seeds = hostsOf('redis').map((h) => `${h.data}:${PORTS.redis}`);
  await run('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', String(REDIS_REPLICAS_PER_MASTER), '--cluster-yes'], {
    timeout: 60_000,
  });
  await waitFor('the Redis Cluster to be ok with every replica attached', 60_000, async () => {
    for (const host of hostsOf('redis')) {
      const info = await redisCli(host.data as string, 'cluster', 'info');
      if (!info.includes('cluster_state:ok')) throw new Error(`${host.name}: ${info.split('\n')[0] ?? ''}`);
    }
    const nodes = await redisCli(hostsOf('redis')[0]?.data as string, 'cluster', 'nodes');
    const masters = nodes.split('\n').filter((l) => / master /.test(l) || /,master /.test(l)).length;
    const replicas = nodes.split('\n').filter((l) => /slave/.test(l) && / connected/.test(l)).length;
    if (masters !== REDIS_MASTERS || replicas !== REDIS_NODES - REDIS_MASTERS) throw new Error(`${masters} masters, ${replicas} replicas`);
  });
}

export interface BrokerAccounts {
  serviceUsername: string;
  servicePassword: string;
  dynsecUsername: string;
  dynsecPassword: string;
}

const password = (): string => randomBytes(18).toString('base64url');

/** deploy/mosquitto/mosquitto.conf with this host's listener address, plugins, Redis nodes and data paths; `admin` drops device sessions. */
export async function brokerConfig(dataDir: string, admin: string): Promise<string> {
  const host = hostNamed('mosquitto');
  const text = await readFile(join(PROJECT_ROOT, 'deploy', 'mosquitto', 'mosquitto.conf'), 'utf8');
  const replaced = text
    .replace(/^listener 1883$/m, `listener ${PORTS.broker} ${host.service}`)
    .replace(/^plugin .*dds_device_auth\.so$/m, `plugin ${findDeviceAuthPlugin()}\nplugin_opt_admin ${admin}`)
    .replace(
      /^plugin_opt_redis .*$/m,
      `plugin_opt_redis ${hostsOf('redis')
        .map((h) => `${h.data}:${PORTS.redis}`)
        .join(',')}`,
    )
    .replace(/^plugin .*mosquitto_dynamic_security\.so$/m, `plugin ${findDynsecPlugin()}`)
    .replace(/^plugin_opt_config_file .*$/m, `plugin_opt_config_file ${join(dataDir, 'dynamic-security.json')}`)
    .replace(/^persistence_location .*$/m, `persistence_location ${dataDir}/`);
  for (const line of [
    `listener ${PORTS.broker} ${host.service}`,
    `plugin_opt_config_file ${dataDir}`,
    `plugin_opt_admin ${admin}`,
    `plugin ${findDynsecPlugin()}`,
    `persistence_location ${dataDir}/`,
  ]) {
    if (!replaced.includes(line)) throw new Error(`deploy/mosquitto/mosquitto.conf changed shape: cannot set "${line}"`);
  }
  // As root, Mosquitto would otherwise drop to the `mosquitto` user, who cannot read this 0700 directory.
  return `${replaced}\nuser ${process.getuid?.() === 0 ? 'root' : (process.env.USER ?? 'root')}\n`;
}

/** The broker's process, its dynamic security JSON made first (as compose's mosquitto-init does). */
export async function brokerProcess(dir: string, logDir: string, accounts: BrokerAccounts): Promise<HostProcess> {
  const dataDir = join(dir, 'mosquitto');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dynsecFile = join(dataDir, 'dynamic-security.json');
  await run('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, accounts.dynsecUsername, accounts.dynsecPassword]);
  const confFile = join(dataDir, 'mosquitto.conf');
  await writeFile(confFile, await brokerConfig(dataDir, accounts.dynsecUsername), { mode: 0o600 });
  return new HostProcess(
    hostNamed('mosquitto'),
    'mosquitto',
    { command: findMosquitto(), args: ['-c', confFile] },
    join(logDir, 'mosquitto.log'),
  );
}

export function newBrokerAccounts(): BrokerAccounts {
  return { serviceUsername: 'dds-service', servicePassword: password(), dynsecUsername: 'dynsec-admin', dynsecPassword: password() };
}

/** Waits for the broker, then gives the service its account (compose's mosquitto-provision). */
export async function provisionBroker(broker: HostProcess, accounts: BrokerAccounts): Promise<void> {
  const url = `mqtt://${hostNamed('mosquitto').service}:${PORTS.broker}`;
  const once = (username: string, pass: string) =>
    connectAsync(url, { username, password: pass, reconnectPeriod: 0, connectTimeout: 2000 }, false);
  const admin = await waitFor('the broker to take its admin', 20_000, () => once(accounts.dynsecUsername, accounts.dynsecPassword), broker);
  try {
    await sendDynsecCommands(admin, serviceAccountCommands('service', accounts.serviceUsername, accounts.servicePassword));
  } finally {
    await admin.endAsync();
  }
  const service = await once(accounts.serviceUsername, accounts.servicePassword);
  await service.endAsync();
}

/** The broker is up again (after a restart): the service account logs in. */
export async function brokerAnswers(accounts: BrokerAccounts): Promise<void> {
  const url = `mqtt://${hostNamed('mosquitto').service}:${PORTS.broker}`;
  const client = await connectAsync(
    url,
    { username: accounts.serviceUsername, password: accounts.servicePassword, reconnectPeriod: 0, connectTimeout: 2000 },
    false,
  );
  await client.endAsync();
}

function postgresBinary(name: string): string {
  const found =
    ['17', '16', '15', '14', '13'].map((v) => `/usr/lib/postgresql/${v}/bin/${name}`).find(isExecutable) ?? findExecutable(name);
  if (!found) throw new Error(`cannot find ${name} (PostgreSQL); run \`npm run setup\``);
  return found;
}

/** initdb as the `postgres` user when root (PostgreSQL refuses root), trust for the harness's networks. */
export async function postgresProcess(dir: string, logDir: string): Promise<HostProcess> {
  const host = hostNamed('postgres');
  const dataDir = join(dir, 'postgres');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o711);
    const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
    chownSync(dataDir, id('-u'), id('-g'));
  }
  const initdb = [postgresBinary('initdb'), '-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'];
  const [cmd, args] = asRoot ? ['runuser', ['-u', 'postgres', '--', ...initdb]] : [initdb[0] as string, initdb.slice(1)];
  await run(cmd, args, { timeout: 60_000 });
  await appendFile(join(dataDir, 'pg_hba.conf'), '\n# the cluster harness: every host of its networks\nhost all all 10.77.0.0/16 trust\n');
  const settings = [
    `listen_addresses=${host.service}`,
    `port=${PORTS.postgres}`,
    'unix_socket_directories=',
    'max_connections=200',
    'fsync=off',
    'synchronous_commit=off',
    'full_page_writes=off',
  ];
  return new HostProcess(
    host,
    'postgres',
    {
      command: postgresBinary('postgres'),
      args: ['-D', dataDir, ...settings.flatMap((s) => ['-c', s])],
      ...(asRoot ? { user: 'postgres' } : {}),
    },
    join(logDir, 'postgres.log'),
  );
}

/** Waits for PostgreSQL and makes the `dds` role and database, as compose's `postgres` service has them. */
export async function preparePostgres(server: HostProcess): Promise<string> {
  const host = hostNamed('postgres').service as string;
  const admin = `postgres://postgres@${host}:${PORTS.postgres}/postgres`;
  await waitFor(
    'PostgreSQL',
    30_000,
    async () => {
      const client = new Client({ connectionString: admin, connectionTimeoutMillis: 1000 });
      try {
        await client.connect();
        await client.query("SELECT 1 FROM pg_roles WHERE rolname = 'dds'").then(async (r) => {
          if (r.rowCount === 0) {
            await client.query('CREATE ROLE dds LOGIN');
            await client.query('CREATE DATABASE dds OWNER dds');
          }
        });
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    server,
  );
  return `postgres://dds@${host}:${PORTS.postgres}/dds`;
}

export async function temporalProcess(logDir: string): Promise<HostProcess> {
  const host = hostNamed('temporal');
  const cli = await ensureTemporalCli(PROJECT_ROOT);
  // All addresses of its host: the dev server's own services dial each other on 127.0.0.1, so with
  // `--ip <service address>` they would not reach one another (the frontend answers, nothing works).
  const args = ['server', 'start-dev', '--ip', '0.0.0.0', '--port', String(PORTS.temporal), '--headless', '--log-level', 'error'];
  return new HostProcess(host, 'temporal', { command: cli, args }, join(logDir, 'temporal.log'));
}

export async function temporalAnswers(server: HostProcess): Promise<string> {
  const address = `${hostNamed('temporal').service}:${PORTS.temporal}`;
  await waitFor(
    'the Temporal dev server',
    90_000,
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
      } finally {
        await connection.close();
      }
    },
    server,
  );
  return address;
}
