import { join, resolve } from 'node:path';

/** What the global setup leaves for the global teardown (both run in jest's parent process). */
export interface RunningTestServers {
  dir: string;
  stops: Array<() => Promise<void>>;
}

declare global {
  var __ddsTestServers: RunningTestServers | undefined;
}

export const PROJECT_ROOT = resolve(__dirname, '..', '..');
/** One record per jest run, so a later run can clean up after one that crashed. */
export const RUNS_DIR = join(PROJECT_ROOT, '.test-servers');
export const TEMP_DIR_PREFIX = 'dds-test-';
