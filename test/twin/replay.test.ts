/**
 * Every committed history of a real twin run (test/twin/histories/*.json, recorded by
 * `npm run record:twin-histories`) must replay on today's workflow code: a change that would
 * break twins already running fails here, before it reaches a worker (docs/workflow-versioning.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../helpers/workflow-bundle';
import { quietTemporalLogs } from './helpers';

const HISTORIES = join(__dirname, 'histories');
const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));

test('the committed histories cover the twin and are there to replay', () => {
  expect(files.length).toBeGreaterThanOrEqual(7);
});

test('every committed twin history replays on the current workflow code', async () => {
  quietTemporalLogs();
  const { code } = await workflowBundle();
  const histories = files.map((file) => ({
    workflowId: file.replace(/\.json$/, ''),
    history: JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')) as unknown,
  }));
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
}, 60_000);
