/**
 * The twin of the rolling-upgrade scenario's next build (scripts/cluster/upgrade/next-workflows.ts,
 * docs/cluster.md) is a change made as docs/workflow-versioning.md asks: behind `patched()`, so it
 * replays every committed history recorded by the code of its time. The scenario also replays the
 * histories its own twins recorded across the upgrade; this holds without a cluster.
 */
import { committedHistories, replayFailures } from '../../scripts/cluster/upgrade/next-build';

test('the next build’s changed twin replays every committed twin history', async () => {
  const histories = await committedHistories();
  expect(histories.length).toBeGreaterThanOrEqual(7);
  expect(await replayFailures(require.resolve('../../scripts/cluster/upgrade/next-workflows'), histories)).toEqual([]);
}, 90_000);
