/**
 * The twin of the rolling-upgrade scenario's next build (scripts/cluster/upgrade/next-twin.ts,
 * docs/cluster.md) is a change made as docs/workflow-versioning.md asks: behind `patched()`, so the
 * next build's workflows (today's, with that twin) replay every committed history recorded by the
 * code of its time. The scenario also replays the histories its own twins recorded across the
 * upgrade; this holds without a cluster.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { committedHistories, nextEntry, replayFailures } from '../../scripts/cluster/upgrade/next-build';

test('the next build’s workflows, with its changed twin, replay every committed history', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dds-next-twin-'));
  try {
    // The bundler resolves @temporalio/workflow from the entry's directory, as in the next build's tree.
    symlinkSync(join(__dirname, '..', '..', 'node_modules'), join(dir, 'node_modules'), 'dir');
    const entry = join(dir, 'next-entry.js');
    writeFileSync(entry, nextEntry(require.resolve('../../workflows'), require.resolve('../../scripts/cluster/upgrade/next-twin')));
    const histories = await committedHistories();
    expect(histories.length).toBeGreaterThanOrEqual(7);
    expect(await replayFailures(entry, histories)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
