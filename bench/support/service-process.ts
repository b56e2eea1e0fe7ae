import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../../scripts/dev-servers';
import type { Backends } from './backends';
import type { Cleanup } from './cleanup';
import { GATEWAY_ENTRY, GATEWAY_NODE_FLAGS, SERVICE_ENTRY, WORKER_ENTRY } from './paths';

/** The service (`node dist/scripts/start.js`) running in its own process, so it has its own CPU. */
export interface ServiceProcess {
  baseUrl: string;
  /** GET /metrics of the service (its METRICS_PORT). */
  metricsUrl: string;
  pid: number;
  logFile: string;
  /** SIGTERM (SIGKILL after 15 s); resolves with how it exited, e.g. `exit code 0`. */
  stop(): Promise<string>;
}

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** A bench-started node process: its pid, its log, how to stop it, and whether it has exited. */
interface NodeProcess {
  pid: number;
  logFile: string;
  stop(): Promise<string>;
  /** How it exited (e.g. `exit code 1`), or null while it runs. */
  exitStatus(): string | null;
}

/** What a node process runs: the built entry and the name of its log file and cleanup step. */
export interface NodeEntry {
  entry: string;
  name: string;
  /** Node flags it runs with in production. */
  flags: readonly string[];
}

/** BENCH_CPU_PROFILE_DIR: the Node flags that make a process write a V8 CPU profile there when it exits (open it in Chrome DevTools). */
export function profileFlags(): string[] {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  return profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
}

/** `node dist/scripts/start.js`: the gateway and the twin worker in one process. */
const ALL_IN_ONE: NodeEntry = { entry: SERVICE_ENTRY, name: 'service', flags: GATEWAY_NODE_FLAGS };

/** `node dist/gateway/main.js`, a gateway-only node, logging to `<name>.log`. */
export const gatewayNode = (name: string): NodeEntry => ({ entry: GATEWAY_ENTRY, name, flags: GATEWAY_NODE_FLAGS });

/** Spawns `entry` in its own process group against `backends`, logging to `<name>.log` in the bench dir. */
function spawnNode(backends: Backends, cleanup: Cleanup, node: NodeEntry, env: Record<string, string>): NodeProcess {
  const logFile = join(backends.dir, `${node.name}.log`);
  const fd = openSync(logFile, 'a');
  // BENCH_NODE_ARGS: more Node flags for every node, after its own, space-separated (e.g. `--trace-gc`).
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...profileFlags(), ...node.flags, ...extra, node.entry], {
    cwd: backends.dir,
    detached: true,
    stdio: ['ignore', fd, fd],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? backends.dir,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '2000',
      REDIS_URL: backends.redisUrl,
      MQTT_URL: backends.mqttUrl,
      MQTT_USERNAME: backends.mqttUsername,
      MQTT_PASSWORD: backends.mqttPassword,
      TEMPORAL_ADDRESS: backends.temporalAddress,
      DATABASE_URL: backends.databaseUrl,
      // Benches measure speed, not limits: their accounts are on the plan without quotas or a
      // device value rate (docs/limits.md), unless a bench says otherwise.
      DEFAULT_PLAN: 'enterprise',
      ...env,
    },
  });
  closeSync(fd);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${node.entry}; run \`npm run build\` first`);
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`)),
  );
  let exitStatus: string | null = null;
  void exited.then((status) => (exitStatus = status));
  const killOnExit = (): void => signalGroup(pid, 'SIGKILL');
  process.on('exit', killOnExit);

  const stop = async (): Promise<string> => {
    if (exitStatus === null) {
      signalGroup(pid, 'SIGTERM');
      const escalate = setTimeout(() => signalGroup(pid, 'SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(escalate);
    }
    process.off('exit', killOnExit);
    return exited;
  };
  cleanup.add(node.name, async () => void (await stop()));
  return { pid, logFile, stop, exitStatus: () => exitStatus };
}

/** Polls `ready` every 250 ms until it holds; throws with the log's tail if the node exits or the timeout passes. */
async function waitReady(node: NodeProcess, label: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const status = node.exitStatus();
    if (status !== null) throw new Error(`${label} exited while starting (${status}):\n${await tail(node.logFile)}`);
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error(`${label} not ready after ${READY_TIMEOUT_MS} ms:\n${await tail(node.logFile)}`);
    await delay(250);
  }
}

/**
 * Starts one service node against `backends` (no dynamic-security admin, so devices are not
 * provisioned at the broker and simulated devices use the service account) and waits for /readyz.
 * By default the all-in-one `npm start` entry; `node` names another entry with an HTTP gateway
 * (e.g. dist/gateway/main.js, which also needs CREDENTIAL_KEY and its own NODE_ID in `env`).
 */
export async function startService(
  backends: Backends,
  cleanup: Cleanup,
  env: Record<string, string> = {},
  node: NodeEntry = ALL_IN_ONE,
): Promise<ServiceProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawnNode(backends, cleanup, node, { PORT: String(port), METRICS_PORT: String(metricsPort), ...env });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(child, node.name, () =>
    fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
  return { baseUrl, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, pid: child.pid, logFile: child.logFile, stop: child.stop };
}

/** A twin worker process (dist/workers/main.js): no HTTP, ready once it logs that it polls its task queue. */
export interface WorkerProcess {
  pid: number;
  logFile: string;
  stop(): Promise<string>;
}

const WORKER_RUNNING = 'twin worker running';

/** Starts `dist/workers/main.js` against `backends` (logging at info, to see it start) and waits until it runs. */
export async function startWorker(backends: Backends, cleanup: Cleanup, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const node = spawnNode(backends, cleanup, { entry: WORKER_ENTRY, name: 'worker', flags: [] }, { LOG_LEVEL: 'info', ...env });
  await waitReady(node, 'worker', async () => (await readFile(node.logFile, 'utf8').catch(() => '')).includes(WORKER_RUNNING));
  return { pid: node.pid, logFile: node.logFile, stop: node.stop };
}

async function tail(file: string, lines = 30): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
