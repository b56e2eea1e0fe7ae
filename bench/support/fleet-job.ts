import type { Client } from '@temporalio/client';
import type { MqttClient } from 'mqtt';
import type { Job } from '../../common/jobs';
import { jobWorkflowId } from '../../common/jobs';
import type { Redis } from '../../common/redis';
import type { BenchAccount } from './api';
import { pool, spread, waitUntil } from './lanes';
import { mirrorFields } from './mirror';
import { printRows, ratio } from './stats';
import { ACTION_KINDS, type ActionCount, actionsInWindow, countActions, pendingAttempts, total } from './twin-actions';

export interface JobRun {
  redis: Redis;
  client: Client;
  account: BenchAccount;
  topicRoot: string;
  /** Service-account connections: they publish statuses and echoes, and see every command. */
  clients: readonly MqttClient[];
  limitMs: number;
}

/** Until each device of `ids` got a message on `pin`'s command topic: arrival time (epoch ms) per device. */
function arrivals(run: JobRun, pin: string, ids: ReadonlySet<string>, echo: boolean): { got: Map<string, number>; stop(): void } {
  const got = new Map<string, number>();
  const suffix = `/pin/${pin}/set`;
  const listener = (topic: string, payload: Buffer): void => {
    if (!topic.endsWith(suffix)) return;
    const id = topic.slice(run.topicRoot.length + 1, -suffix.length);
    if (!ids.has(id) || got.has(id)) return;
    got.set(id, Date.now());
    // The device's echo acknowledges the command (docs/commands.md), as a device that applied it would.
    if (echo) void (run.clients[0] as MqttClient).publishAsync(`${run.topicRoot}/${id}/pin/${pin}`, payload, { qos: 1 });
  };
  for (const c of run.clients) c.on('message', listener);
  return { got, stop: () => run.clients.forEach((c) => c.off('message', listener)) };
}

/** Shows `ids` online (a status `online` each) and waits until their twins confirmed it. */
export async function bringOnline(run: JobRun, ids: readonly string[]): Promise<void> {
  await pool(ids, 64, (id, i) =>
    (run.clients[i % run.clients.length] as MqttClient).publishAsync(`${run.topicRoot}/${id}/status`, 'online', { qos: 1 }),
  );
  await waitUntil(
    'online devices confirmed by their twins',
    async () => {
      const [status, ahead] = await Promise.all([mirrorFields(run.redis, ids, 'status'), mirrorFields(run.redis, ids, 'statusAhead')]);
      return status.every((s) => s === 'online') && ahead.every((a) => a === null);
    },
    run.limitMs,
    500,
  );
}

/** Every run of a workflow (continue-as-new makes several): its actions over its whole life. */
async function workflowActions(client: Client, workflowId: string): Promise<ActionCount> {
  const sum: ActionCount = { start: 0, signal: 0, update: 0, activity: 0, timer: 0, child: 0, marker: 0, retries: 0 };
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
    const c = countActions(history.events ?? [], 0, Number.MAX_SAFE_INTEGER, new Map());
    for (const k of ACTION_KINDS) sum[k] += c[k];
  }
  return sum;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * The bare baseline, same run: one message straight to each online device's command topic from
 * the service's own connection (QoS 1, 64 at a time): until every one arrived.
 */
export async function bareSend(run: JobRun, online: readonly string[]): Promise<number> {
  const watch = arrivals(run, 'V8', new Set(online), false);
  const t0 = Date.now();
  await pool(online, 64, (id, i) =>
    (run.clients[i % run.clients.length] as MqttClient).publishAsync(`${run.topicRoot}/${id}/pin/V8/set`, 'bare', { qos: 1 }),
  );
  await waitUntil('bare sends arrived', async () => watch.got.size === online.length, run.limitMs, 50);
  watch.stop();
  return Date.now() - t0;
}

/**
 * A command job (POST /api/v1/jobs, target `tag`) to every device of `targets`, of which `online`
 * are online and echo the command: until every online device has it, until each acknowledged
 * (the job's counts), until the job completed (the offline ones expire at the TTL); then the
 * Temporal actions of the job's workflow and of `twinSample` twins of each kind, per device.
 */
export async function commandJob(
  run: JobRun,
  opts: { tag: string; targets: readonly string[]; online: readonly string[]; ttlS: number; twinSample: number; bareMs: number },
): Promise<void> {
  const onlineSet = new Set(opts.online);
  const offline = opts.targets.filter((id) => !onlineSet.has(id));
  const sample = [...spread(opts.online, opts.twinSample), ...spread(offline, opts.twinSample)];
  const attemptsAtStart = new Map(await Promise.all(sample.map(async (id) => [id, await pendingAttempts(run.client, id)] as const)));
  const watch = arrivals(run, 'V9', onlineSet, true);
  const t0 = Date.now();
  const job = await run.account.call<Job>('POST', '/api/v1/jobs', {
    projectId: run.account.projectId,
    target: { tag: opts.tag },
    action: { type: 'command', pin: 'V9', value: 'go' },
    ttlSeconds: opts.ttlS,
  });
  const answeredMs = Date.now() - t0;
  const read = () => run.account.call<Job>('GET', `/api/v1/jobs/${job.id}`);
  /** Waits until `check` holds; the ms since the job was posted. */
  const since = async (what: string, check: () => Promise<boolean>, everyMs: number): Promise<number> => {
    await waitUntil(what, check, run.limitMs, everyMs);
    return Date.now() - t0;
  };
  const allHaveMs = await since('every online device has the command', async () => watch.got.size === opts.online.length, 50);
  const ackMs = await since('every online device acknowledged', async () => (await read()).counts.acknowledged >= opts.online.length, 250);
  const doneMs = await since('the job completed', async () => (await read()).state === 'completed', 500);
  watch.stop();
  const finished = await read();
  const end = Date.now();
  const arrivedAt = [...watch.got.values()].sort((a, b) => a - b);
  const jobActions = await workflowActions(run.client, jobWorkflowId(job.id));
  const twinActions = await Promise.all(
    sample.map(async (id) =>
      total(await actionsInWindow(run.client, id, t0, end, attemptsAtStart.get(id) ?? new Map(), await pendingAttempts(run.client, id))),
    ),
  );
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const onlineTwins = mean(twinActions.slice(0, opts.twinSample));
  const offlineTwins = mean(twinActions.slice(opts.twinSample));
  const n = opts.targets.length;
  printRows(`\ncommand job to ${n} devices (${opts.online.length} online, ${offline.length} offline; TTL ${opts.ttlS} s)`, [
    ['POST /jobs answered', `${answeredMs} ms`],
    [
      'first / half / every online device has it',
      `${seconds((arrivedAt[0] ?? NaN) - t0)} / ${seconds((arrivedAt[Math.floor(arrivedAt.length / 2)] ?? NaN) - t0)} / ${seconds(allHaveMs)}`,
    ],
    ['bare baseline: as many messages straight to them', `${seconds(opts.bareMs)} (job ÷ bare ${ratio(allHaveMs, opts.bareMs)})`],
    ['every online device acknowledged (job counts)', seconds(ackMs)],
    ['job completed (offline ones expired)', `${seconds(doneMs)}: ${JSON.stringify(finished.counts)}`],
    ['job workflow actions', `${total(jobActions)} (${(total(jobActions) / n).toFixed(3)} per device): ${JSON.stringify(jobActions)}`],
    [`twin actions per device, sample of ${opts.twinSample}`, `online ${onlineTwins.toFixed(2)}, offline ${offlineTwins.toFixed(2)}`],
    [
      'Temporal actions per device, all told',
      ((total(jobActions) + onlineTwins * opts.online.length + offlineTwins * offline.length) / n).toFixed(3),
    ],
  ]);
}
