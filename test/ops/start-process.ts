import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readLocalEndpoints } from '../../scripts/local-endpoints';
import { httpClient, type Request } from '../helpers/http';
import { eventually } from '../helpers/wait';

const ROOT = resolve(__dirname, '..', '..');
const TS_REGISTER = resolve(ROOT, 'test/twin/support/ts-register.js');

/** A running `npm start` (scripts/start.ts from the sources, as tests run them) in a directory of its own. */
export interface StartProcess {
  child: ChildProcess;
  baseUrl: string;
  mqttUrl: string;
  /** With MQTT_TLS=1: the CA file that verifies mqttUrl (the TLS listener). */
  caFile?: string;
  request: Request;
  /** Everything it wrote (pino JSON lines), for failure messages. */
  output(): string;
  /** Resolves with its exit code once it has exited. */
  exited: Promise<number | null>;
}

/**
 * Starts scripts/start.ts with `cwd` as its project directory (its data in `cwd`/data) and only
 * `env` besides PATH and HOME (none of the jest run's server addresses), and resolves once the
 * URL it writes to data/endpoints.json answers GET /healthz with 200.
 */
export async function startNpmStart(cwd: string, env: Record<string, string>, readyMs = 60_000): Promise<StartProcess> {
  const dataDir = join(cwd, 'data');
  rmSync(join(dataDir, 'endpoints.json'), { force: true });
  const child = spawn(process.execPath, ['-r', TS_REGISTER, resolve(ROOT, 'scripts/start.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  const ready = eventually(
    async () => {
      const found = readLocalEndpoints(dataDir);
      if (!found) throw new Error(`npm start not ready in ${readyMs} ms:\n${out}`);
      const health = await fetch(`${found.url.replace('localhost', '127.0.0.1')}/healthz`).catch(() => null);
      if (health?.status !== 200) throw new Error(`GET /healthz: ${health?.status ?? 'no answer'}\n${out}`);
      return found;
    },
    readyMs,
    200,
  );
  const endedEarly = exited.then((code) => {
    throw new Error(`npm start exited (${code}) before it was ready:\n${out}`);
  });
  // Whichever loses the race fails later, unheard.
  ready.catch(() => undefined);
  endedEarly.catch(() => undefined);
  const endpoints = await Promise.race([ready, endedEarly]);
  const baseUrl = endpoints.url.replace('localhost', '127.0.0.1');
  return {
    child,
    baseUrl,
    mqttUrl: endpoints.mqttUrl,
    ...(endpoints.caFile ? { caFile: endpoints.caFile } : {}),
    request: httpClient(baseUrl),
    output: () => out,
    exited,
  };
}
