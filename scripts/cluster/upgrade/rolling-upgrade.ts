/**
 * The rolling-upgrade scenario (docs/cluster.md): every worker, then every gateway, replaced one
 * at a time under load by a build with a changed twin (next-build.ts): each stopped with SIGTERM
 * (a graceful stop), the next build started on its host, and the next node touched only once this
 * one is back (a worker polling, a gateway ready and in the balancer's rotation). Then the
 * versioning checks of docs/workflow-versioning.md on the live cluster: the changed twin replays
 * every committed history and every history this run's twins recorded across the upgrade, the
 * twins started before it are still running on their old branch, and a twin started after it
 * takes the new one.
 */
import { Client, Connection } from '@temporalio/client';
import { twinWorkflowId } from '../../../common/contracts';
import { type Row, seconds } from '../checks/row';
import type { Scenario, ScenarioContext } from '../scenario';
import { hostsOf } from '../topology';
import { PROJECT_ROOT, waitFor } from '../wait';
import { committedHistories, makeNextBuild, type NamedHistory, replayFailures, workflowEntry } from './next-build';
import { NEXT_BUILD_MEMO } from './next-twin-mark';

/** How long a replaced node may take to be back (a worker bundles its workflows at start: seconds of CPU). */
const BACK_MS = 90_000;

/** Waits until the balancer answers from `name` (it checks /readyz every second and wants 2 successes). */
async function inRotation(ctx: ScenarioContext, name: string): Promise<void> {
  await waitFor(`the balancer to route to ${name}`, 20_000, async () => {
    const res = await fetch(`${ctx.cluster.balancerUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    if (res.headers.get('x-dds-node') !== name) throw new Error(`answered by ${res.headers.get('x-dds-node') ?? 'no node'}`);
  });
}

/** Replaces one node by the next build; a row with how long its stop and its return took. */
async function replace(ctx: ScenarioContext, name: string, root: string): Promise<void> {
  ctx.mark(`${name} stopping (SIGTERM)`);
  const stopping = Date.now();
  try {
    const startedAt = await ctx.cluster.replace(name, root, BACK_MS);
    const gateway = name.startsWith('gateway-');
    const back = Date.now();
    if (gateway) await inRotation(ctx, name);
    ctx.mark(`${name} on the next build, ${gateway ? 'ready and in rotation' : 'polling'}`);
    ctx.rows.push({
      check: `${name} replaced`,
      verdict: 'ok',
      figures:
        `stopped ${seconds(startedAt - stopping)} after its SIGTERM; the next build ${gateway ? 'ready' : 'polling'} ` +
        `${seconds(back - startedAt)} after its start${gateway ? `, in the balancer's rotation ${seconds(Date.now() - back)} later` : ''}`,
    });
  } catch (e) {
    ctx.mark(`${name} not back`);
    ctx.rows.push({ check: `${name} replaced`, verdict: 'FAIL', figures: (e as Error).message.split('\n')[0] ?? '' });
  }
}

/** Every load twin's history, as recorded in this run by both builds. */
async function liveHistories(client: Client, deviceIds: string[]): Promise<NamedHistory[]> {
  return Promise.all(
    deviceIds.map(async (id) => ({
      workflowId: twinWorkflowId(id),
      history: await client.workflow.getHandle(twinWorkflowId(id)).fetchHistory(),
    })),
  );
}

/**
 * The versioning rows: replay on the next build, the load's twins (a run started before the first
 * node was replaced must be on the old branch, one started after the last on the new; a run may
 * continue-as-new meanwhile), a new device's twin on the new branch.
 */
async function versioningRows(ctx: ScenarioContext, client: Client, root: string, window: { from: number; to: number }): Promise<Row[]> {
  const deviceIds = ctx.load.devices.map((d) => d.record.id);
  const committed = await committedHistories();
  const live = await liveHistories(client, deviceIds);
  const failures = await replayFailures(workflowEntry(root), [...committed, ...live]);
  const replayRow: Row = {
    check: 'next twin replays the histories',
    verdict: failures.length ? 'FAIL' : 'ok',
    figures: `${committed.length} committed (test/twin/histories) and ${live.length} of this run (started by today's build, continued by the next): ${
      failures.length ? `FAILED ${failures.join('; ')}` : 'every one replays'
    }`,
  };

  const old = await Promise.all(deviceIds.map((id) => client.workflow.getHandle(twinWorkflowId(id)).describe()));
  const notRunning = old.filter((d) => d.status.name !== 'RUNNING').map((d) => `${d.workflowId} ${d.status.name}`);
  const retrying = old.filter((d) => (d.raw.pendingWorkflowTask?.attempt ?? 0) > 1).map((d) => d.workflowId);
  const onNext = (d: (typeof old)[number]): boolean => d.memo?.build === NEXT_BUILD_MEMO.build;
  const before = old.filter((d) => d.startTime.getTime() < window.from);
  const since = old.filter((d) => d.startTime.getTime() > window.to);
  const wrongBranch = before.filter(onNext).length + since.filter((d) => !onNext(d)).length;

  const projectId = (await ctx.load.api.must<{ id: string }>('POST', '/projects', { name: 'after the upgrade' }, 201)).id;
  const fresh = await ctx.load.api.device(projectId, 'after-upgrade');
  const handle = client.workflow.getHandle(twinWorkflowId(fresh.id));
  const freshBuild = await waitFor('the new twin to record its build', 30_000, async () => {
    const memo = (await handle.describe()).memo;
    if (memo?.build !== NEXT_BUILD_MEMO.build) throw new Error(`memo ${JSON.stringify(memo ?? {})}`);
    return memo.build;
  }).catch((e: Error) => `not the next build (${e.message.split('\n')[0]})`);
  const rollback = await replayFailures(workflowEntry(PROJECT_ROOT), [
    { workflowId: handle.workflowId, history: await handle.fetchHistory() },
  ]);
  const twinsOk = !notRunning.length && !retrying.length && wrongBranch === 0 && freshBuild === NEXT_BUILD_MEMO.build;
  const twinsRow: Row = {
    check: 'twins across the upgrade',
    verdict: twinsOk ? 'ok' : 'FAIL',
    figures:
      `${old.length - notRunning.length} of ${old.length} load twins running (${before.length} runs from before it, ` +
      `${before.filter((d) => !onNext(d)).length} on the old branch; ${since.length} continued since, ${since.filter(onNext).length} on the new)` +
      `${notRunning.length ? ` NOT running: ${notRunning.join(', ')};` : ''}${wrongBranch ? ` ${wrongBranch} on the wrong branch!` : ''}, ` +
      `${retrying.length ? `workflow task failing in ${retrying.join(', ')}` : 'no workflow task failing'}; ` +
      `a twin started after it: ${freshBuild === NEXT_BUILD_MEMO.build ? 'the new branch (memo build next)' : freshBuild}; ` +
      `today's build replaying that twin's history: ${rollback.length ? 'nondeterminism (a rollback would stall the new runs)' : 'replays'}`,
  };
  return [replayRow, twinsRow];
}

export const rollingUpgrade: Scenario = {
  name: 'rolling-upgrade',
  what: 'every worker, then every gateway, replaced one at a time (SIGTERM) by a build with a changed twin',
  async run(ctx) {
    const root = await makeNextBuild(ctx.cluster.dir);
    ctx.mark(`next build made in ${root}`);
    const from = Date.now();
    for (const host of [...hostsOf('worker'), ...hostsOf('gateway')]) await replace(ctx, host.name, root);
    const window = { from, to: Date.now() };
    const connection = await Connection.connect({ address: ctx.cluster.secrets.temporalAddress });
    try {
      ctx.rows.push(...(await versioningRows(ctx, new Client({ connection }), root, window)));
      ctx.mark('versioning checked');
    } finally {
      await connection.close();
    }
  },
};
