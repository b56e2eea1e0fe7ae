import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote (pino JSON lines), for diagnostics. */
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Runs workers/main.ts as its own process (the real entry point), on the harness's servers,
 * and resolves once it logs that it is running.
 */
export async function startWorkerProcess(env: Record<string, string>, readyMs = 60_000): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['-r', resolve(__dirname, 'ts-register.js'), resolve(ROOT, 'workers/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`worker process not ready in ${readyMs} ms:\n${out}`)), readyMs);
    const check = () => {
      if (out.includes('twin worker running')) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        ready();
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`worker process exited (${code}) before it was ready:\n${out}`));
    });
  });
  return { child, output: () => out, exited };
}
