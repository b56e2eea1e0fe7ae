/**
 * The twin of the harness's "next build" (the rolling-upgrade scenario, docs/cluster.md): today's
 * twin with one change made as docs/workflow-versioning.md asks of a change to the commands,
 * behind `patched()`. A run this build starts first records in its memo which build started it (a
 * ModifyWorkflowProperties command today's twin never issues); a run started before it takes the
 * old branch and replays unchanged. The next build's workflow entry is today's with this
 * `deviceTwin` in place of today's (next-build.ts); the product's bundle never contains it.
 */
import { patched, upsertMemo } from '@temporalio/workflow';
import type { TwinEnd } from '../../../common/twin-contracts';
import { deviceTwin as todaysTwin, type TwinInput } from '../../../workflows/twin/device-twin';
import { NEXT_BUILD_MEMO, NEXT_BUILD_PATCH } from './next-twin-mark';

export async function deviceTwin(input: TwinInput): Promise<TwinEnd> {
  if (patched(NEXT_BUILD_PATCH)) upsertMemo({ ...NEXT_BUILD_MEMO });
  return todaysTwin(input);
}
