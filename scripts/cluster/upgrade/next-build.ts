/**
 * The build a rolling upgrade rolls out (docs/cluster.md, "rolling-upgrade"): a copy of today's
 * `dist/` in the run's directory whose workflow entry is today's with the changed twin
 * (next-twin.ts, compiled with the rest of scripts/) in place of today's, so its gateways and
 * workers run from a tree of their own as a deployed new release would. And the replay check of
 * docs/workflow-versioning.md for it: histories run through a build's workflow bundle.
 */
import { cp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { PROJECT_ROOT } from '../wait';

/** The workflow entry of a build rooted at `root` (today's: PROJECT_ROOT). */
export const workflowEntry = (root: string): string => join(root, 'dist', 'workflows', 'index.js');

/** A workflow entry (CommonJS): every workflow `today` exports, with `deviceTwin` taken from `nextTwin` instead. */
export function nextEntry(today: string, nextTwin: string): string {
  return (
    '"use strict";\n// The next build: today\'s workflows, the twin replaced by scripts/cluster/upgrade/next-twin.ts.\n' +
    `module.exports = { ...require(${JSON.stringify(today)}), ...require(${JSON.stringify(nextTwin)}) };\n`
  );
}

/** Copies dist/ to `<runDir>/next-build/dist` with the changed twin in its workflow entry; returns the build's root. */
export async function makeNextBuild(runDir: string): Promise<string> {
  const root = join(runDir, 'next-build');
  const compiled = join(PROJECT_ROOT, 'dist', 'scripts', 'cluster', 'upgrade', 'next-twin.js');
  await readFile(compiled).catch(() => {
    throw new Error(`${compiled} is missing: compile first (tsc -p tsconfig.build.json)`);
  });
  await cp(join(PROJECT_ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  await cp(join(PROJECT_ROOT, 'package.json'), join(root, 'package.json'));
  await symlink(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  await rm(`${workflowEntry(root)}.map`, { force: true });
  await rename(workflowEntry(root), join(root, 'dist', 'workflows', 'today.js'));
  await writeFile(workflowEntry(root), nextEntry('./today', '../scripts/cluster/upgrade/next-twin'));
  return root;
}

export interface NamedHistory {
  workflowId: string;
  history: unknown;
}

/** The histories test/twin/replay.test.ts replays on every change (recorded by earlier code, committed). */
export async function committedHistories(): Promise<NamedHistory[]> {
  const dir = join(PROJECT_ROOT, 'test', 'twin', 'histories');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json'));
  return Promise.all(
    files.map(async (f) => ({
      workflowId: f.replace(/\.json$/, ''),
      history: JSON.parse(await readFile(join(dir, f), 'utf8')) as unknown,
    })),
  );
}

const quiet = (): void => undefined;
const quietBundler = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };

/** Replays `histories` on the workflow bundle of `entry`; the ids that failed, with why. */
export async function replayFailures(entry: string, histories: NamedHistory[]): Promise<string[]> {
  try {
    // Quiet: the harness replays a history on a build expected to refuse it, and core logs each refusal as a warning.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR' }, forward: {} } } });
  } catch {
    // installed already in this process (an earlier replay)
  }
  const { code } = await bundleWorkflowCode({ workflowsPath: entry, logger: quietBundler });
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message.split('\n')[0] ?? ''}`);
  }
  return failures;
}
