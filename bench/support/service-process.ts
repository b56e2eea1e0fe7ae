import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../../scripts/dev-servers';
import type { Backends } from './backends';
import type { Cleanup } from './cleanup';
import { SERVICE_ENTRY } from './paths';

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

/**
 * Starts one service node against `backends` (no dynamic-security admin, so devices are not
 * provisioned at the broker and simulated devices use the service account) and waits for /readyz.
 */
export async function startService(backends: Backends, cleanup: Cleanup, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const logFile = join(backends.dir, 'service.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [SERVICE_ENTRY], {
    cwd: backends.dir,
    detached: true,
    stdio: ['ignore', fd, fd],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? backends.dir,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '2000',
      REDIS_URL: backends.redisUrl,
      MQTT_URL: backends.mqttUrl,
      MQTT_USERNAME: backends.mqttUsername,
      MQTT_PASSWORD: backends.mqttPassword,
      TEMPORAL_ADDRESS: backends.temporalAddress,
      DATABASE_URL: backends.databaseUrl,
      ...env,
    },
  });
  closeSync(fd);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${SERVICE_ENTRY}; run \`npm run build\` first`);
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
  cleanup.add('service', async () => void (await stop()));

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exitStatus !== null) throw new Error(`service exited while starting (${exitStatus}):\n${await tail(logFile)}`);
    const ready = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (ready) return { baseUrl, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, pid, logFile, stop };
    if (Date.now() > deadline) throw new Error(`service not ready after ${READY_TIMEOUT_MS} ms:\n${await tail(logFile)}`);
    await delay(250);
  }
}

async function tail(file: string, lines = 30): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
