import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { dieWithParent } from './die-with-parent';

/** A server running in its own process group, its stdout and stderr appended to a log file. */
export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Null while it runs; how it ended once it has exited. */
  exitStatus(): string | null;
  /** SIGTERM to the process group, SIGKILL after `timeoutMs`; resolves once it has exited. */
  stop(timeoutMs?: number): Promise<void>;
  logTail(lines?: number): Promise<string>;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/**
 * Who a server belongs to when it must not outlive its spawner (`npm start`): the server gets
 * SIGTERM when this process dies (die-with-parent.ts), and `spawned` hears of it before it is
 * ready, so a record of it can be kept (scripts/start/children.ts).
 */
export interface ServerOwner {
  spawned(name: string, pid: number): void;
}

/**
 * Starts `command` detached (a new process group, so stop() reaches its children too); with an
 * `owner`, tied to this process's life and reported to the owner.
 */
export async function spawnServer(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  owner?: ServerOwner,
): Promise<ServerProcess> {
  const fd = openSync(logFile, 'a');
  const [file, argv] = owner ? dieWithParent(command, args) : [command, args];
  const child = spawn(file, argv, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) => reject(new Error(`cannot start ${name} (${command}): ${e.message}; run \`npm run setup\``)));
  });
  const pid = child.pid as number;
  owner?.spawned(name, pid);
  let status: string | null = null;
  const killOnExit = (): void => signalGroup(pid, 'SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      status = signal ? `killed by ${signal}` : `exit code ${code}`;
      process.off('exit', killOnExit);
      resolve();
    }),
  );
  return {
    name,
    pid,
    logFile,
    exitStatus: () => status,
    async stop(timeoutMs = 5000) {
      if (status) return;
      signalGroup(pid, 'SIGTERM');
      const escalate = setTimeout(() => signalGroup(pid, 'SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(escalate);
    },
    async logTail(lines = 30) {
      const text = await readFile(logFile, 'utf8').catch(() => '');
      return text.trimEnd().split('\n').slice(-lines).join('\n');
    },
  };
}

/** Retries `attempt` until it succeeds, the server exits, or `timeoutMs` passes. */
export async function poll<T>(server: ServerProcess, attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt made';
  while (Date.now() < deadline) {
    const status = server.exitStatus();
    if (status) throw new Error(`exited early (${status})`);
    try {
      return await attempt();
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
    }
    await delay(100);
  }
  throw new Error(`not ready after ${timeoutMs} ms (last error: ${lastError})`);
}

/** Runs the readiness steps; on failure stops the server and throws with the tail of its log. */
export async function bootServer<T>(server: ServerProcess, ready: () => Promise<T>): Promise<T> {
  try {
    return await ready();
  } catch (e) {
    await server.stop();
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`${server.name} did not start: ${reason}\n--- last lines of ${server.logFile} ---\n${await server.logTail()}`);
  }
}
