/**
 * A process on one of the harness's hosts: `ip netns exec <ns> setpriv --pdeathsig KILL -- cmd`,
 * so it sees only its host's network and dies with the harness even when the harness is
 * SIGKILLed (the next run's removeLeftovers() takes what is left). It can be killed and started
 * again with the same command line, which is what the scenarios do.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { findExecutable } from '../dev-servers/find-executable';
import { ipCommand } from './net';
import type { Host } from './topology';

export interface ProcessSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Run as this OS user (PostgreSQL refuses root). */
  user?: string;
  cwd?: string;
}

let setprivBinary: string | undefined;

function setpriv(): string {
  setprivBinary ??= findExecutable('setpriv', ['/usr/bin', '/bin']) ?? undefined;
  if (!setprivBinary) throw new Error('setpriv (util-linux) not found: the harness ties every process to its own life with it');
  return setprivBinary;
}

function userIds(user: string): string[] {
  const id = (flag: string): string => execFileSync('id', [flag, user]).toString().trim();
  return [`--reuid=${id('-u')}`, `--regid=${id('-g')}`, '--init-groups'];
}

/** The argv that runs `spec` inside `netns`, tied to this process's life. */
export function inNamespace(netns: string, spec: ProcessSpec): [string, string[]] {
  const asUser = spec.user ? userIds(spec.user) : [];
  return [ipCommand(), ['netns', 'exec', netns, setpriv(), ...asUser, '--pdeathsig', 'KILL', '--', spec.command, ...spec.args]];
}

/** The few variables of the harness's own environment a child needs (never the rest: each gets its config explicitly). */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR'];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] ? [[k, process.env[k] as string]] : [])));
}

export class HostProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private status: string | null = 'not started';

  constructor(
    readonly host: Host,
    readonly label: string,
    readonly spec: ProcessSpec,
    readonly logFile: string,
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Null while it runs; how it ended otherwise. */
  exitStatus(): string | null {
    return this.status;
  }

  async start(): Promise<void> {
    if (this.status === null) throw new Error(`${this.label} already runs`);
    const fd = openSync(this.logFile, 'a');
    const [file, argv] = inNamespace(this.host.netns, this.spec);
    const child = spawn(file, argv, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...baseEnv(), ...this.spec.env },
      cwd: this.spec.cwd,
    });
    closeSync(fd);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) => reject(new Error(`cannot start ${this.label}: ${e.message}`)));
    });
    this.child = child;
    this.status = null;
    this.exited = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        this.status = signal ? `killed by ${signal}` : `exit code ${code}`;
        resolve();
      }),
    );
  }

  /** Sends `signal` to its process group (its own children too) and waits for it to exit, SIGKILL after `graceMs`. */
  async signal(signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
    const pid = this.child?.pid;
    if (this.status !== null || pid === undefined) return;
    const send = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-pid, sig);
      } catch {
        // gone already
      }
    };
    send(signal);
    const escalate = setTimeout(() => send('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(escalate);
  }

  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  stop(graceMs = 5000): Promise<void> {
    return this.signal('SIGTERM', graceMs);
  }

  async logTail(lines = 20): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  async log(): Promise<string> {
    return readFile(this.logFile, 'utf8').catch(() => '');
  }
}
