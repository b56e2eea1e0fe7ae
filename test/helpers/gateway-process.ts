import { randomBytes, randomUUID } from 'node:crypto';
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { ADMIN_TOKEN } from './stack';
import { httpClient, type Request } from './http';
import { eventually } from './wait';

const ROOT = resolve(__dirname, '..', '..');
const TS_REGISTER = resolve(ROOT, 'test/twin/support/ts-register.js');

export interface GatewayProcess {
  child: ChildProcess;
  baseUrl: string;
  request: Request;
  /** The env it runs with (task queue, topic root, keys), so a worker process can serve it. */
  env: Record<string, string>;
  /** GET /metrics on its metrics port: the Prometheus text. */
  metrics(): Promise<string>;
  /** Everything it wrote (pino JSON lines). */
  output(): string;
  /** The exit code once it exited, or undefined while it runs. */
  exitCode(): number | null | undefined;
  /** Stops it with SIGTERM (its graceful shutdown) and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Runs gateway/main.ts (the real entry point, with its process-level guards) as its own process
 * on the harness's servers, on a free port, and resolves once /readyz answers 200. A hostile
 * request that ends the process is then seen as an exit, not hidden inside jest's process; a
 * fault test can SIGKILL it and start it again with the same env.
 */
export async function startGatewayProcess(overrides: Record<string, string> = {}, readyMs = 60_000): Promise<GatewayProcess> {
  const env: Record<string, string> = {
    TEMPORAL_TASK_QUEUE: `proc-${randomUUID()}`,
    MQTT_TOPIC_ROOT: `p${randomUUID().slice(0, 8)}`,
    // Its broker sessions are named after the node: a name of its own, sessions that do not outlive the run.
    NODE_ID: `proc-${randomUUID()}`,
    MQTT_SESSION_EXPIRY_S: '60',
    ADMIN_TOKEN,
    CREDENTIAL_KEY: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    SHUTDOWN_GRACE_MS: '2000',
    ...overrides,
  };
  const child = spawn(process.execPath, ['-r', TS_REGISTER, resolve(ROOT, 'gateway/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let code: number | null | undefined;
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<void>((r) =>
    child.once('exit', (c) => {
      code = c;
      r();
    }),
  );

  const [port, metricsPort] = await eventually(
    () => {
      if (code !== undefined) throw new Error(`gateway process exited (${code}) before it listened:\n${out}`);
      const match = /"port":(\d+),"metricsPort":(\d+).*"msg":"gateway listening"/.exec(out);
      if (!match?.[1] || !match[2]) throw new Error(`gateway process not listening in ${readyMs} ms:\n${out}`);
      return [Number(match[1]), Number(match[2])];
    },
    readyMs,
    100,
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const request = httpClient(baseUrl);
  await eventually(
    async () => {
      const ready = await request('GET', '/readyz');
      if (ready.status !== 200) throw new Error(`gateway process not ready: ${ready.text}`);
    },
    readyMs,
    100,
  );

  return {
    child,
    baseUrl,
    request,
    env,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
    output: () => out,
    exitCode: () => code,
    async stop() {
      if (code === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}
