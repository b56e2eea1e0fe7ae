/**
 * The gateway's Temporal calls carry their deadline without leaving Node's promise hooks on
 * (gateway/temporal/temporal-deadline.ts): once a call is done, the node's promises are not tracked.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

test('connecting and a twin call under a deadline leave no promise hooks on once done', async () => {
  const support = resolve(__dirname, 'support');
  const { stdout } = await run(process.execPath, ['-r', resolve(support, 'ts-register.js'), resolve(support, 'deadline-probe.ts')], {
    cwd: resolve(__dirname, '..', '..'),
    env: process.env,
  });
  expect(JSON.parse(stdout)).toEqual({ afterConnect: false, afterCall: false });
});
