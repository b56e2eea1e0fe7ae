/**
 * bench/fleet-rules phase `change`: an `offline` and a `no_data` rule over a fleet of one
 * template, made once as scoped rules (project-wide and template) and, as the same run's
 * baseline, as one device rule of each per device on a second fleet of the same size.
 */
import type { MqttClient } from 'mqtt';
import { watchApplied } from './applied-watch';
import { cpuSeconds, waitForQuiet } from './cpu';
import { createRule, type Fleet, type FleetRun, publishStatus } from './fleet-setup';
import { pool, spread, timed, waitUntil } from './lanes';
import { outboxLength } from './mirror';
import { waitForNotified } from './notifications';
import { callsAdded, twinCalls } from './service-metrics';
import { ms, printRows, printTable, ratio, summarize } from './stats';
import { ACTION_KINDS, total, type ActionCount } from './twin-actions';
import { markTwins, twinsSince } from './twin-sample';

/** What one way of making the change tells the measurement while it runs. */
interface ChangeContext {
  /** These devices' twins must now show these rules: the watch starts checking them. */
  expect(ids: readonly string[], offlineRuleId: string, noDataRuleId: string): void;
  /** Publishes `offline` for these sample devices now (each one's time is kept). */
  publishOffline(ids: readonly string[]): Promise<void>;
}

interface SideResult {
  label: string;
  requests: { offline: number[]; noData: number[] };
  /** From the first request until the last answer. */
  answeredMs: number;
  /** Each sampled twin: ms from the first request until its state query was first seen showing both rules. */
  applied: number[];
  /** Twins sampled for state queries. */
  watched: number;
  /** State queries the watch made. */
  queries: number;
  drainedMs: number;
  calls: Map<string, number>;
  events: number[];
  actions: ActionCount;
  /** Sample devices: ms from their `offline` message to their offline notification. */
  notified: number[];
  cpu: Record<string, number>;
}

export interface ChangeOptions {
  /** State queries in flight at once, and the least time between two of one twin (each may replay its history). */
  pollLanes: number;
  recheckMs: number;
  /** Twins whose state is queried until it shows both rules (a query of a twin out of the worker's cache replays its history). */
  appliedSample: number;
  historySample: number;
  noDataS: number;
}

const cpuNow = (pids: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));

const secs = (msValue: number | null): string => (msValue === null ? 'not within the limit' : `${(msValue / 1000).toFixed(1)} s`);

async function measure(
  run: FleetRun,
  fleet: Fleet,
  clients: readonly MqttClient[],
  sample: ReadonlySet<string>,
  options: ChangeOptions,
  label: string,
  change: (ctx: ChangeContext) => Promise<SideResult['requests']>,
): Promise<SideResult> {
  const pids = {
    gateway: run.pids.gateway,
    worker: run.pids.worker,
    temporal: run.backends.pids.temporal,
    redis: run.backends.pids.redis,
  };
  await waitForQuiet(Object.values(pids), 20, 120_000, [], 3);
  const mark = await markTwins(
    run.client,
    spread(
      fleet.ids.filter((id) => !sample.has(id)),
      options.historySample,
    ),
  );
  const callsBefore = await twinCalls(run.metricsUrl);
  const cpuBefore = cpuNow(pids);
  const t0 = Date.now();

  const expected = new Map<string, { offline: string; noData: string }>();
  const watched = new Set(spread(fleet.ids, options.appliedSample));
  const watch = watchAppliedRules(run, options, expected);
  const sentAt = new Map<string, number>();
  const requests = await change({
    expect(ids, offline, noData) {
      const sampled = ids.filter((id) => watched.has(id));
      for (const id of sampled) expected.set(id, { offline, noData });
      watch.add(sampled);
    },
    async publishOffline(ids) {
      for (const [id, at] of await publishStatus(run, clients, ids, 'offline')) sentAt.set(id, at);
    },
  });
  const answeredMs = Date.now() - t0;
  const notified = await waitForNotified(fleet.project.call, fleet.project.projectId, 'device_status', sentAt, run.limitMs);
  const { seen, checks } = await watch.done();
  await waitUntil('outbox drained', async () => (await outboxLength(run.redis, run.taskQueue)) === 0, run.limitMs, 250);
  const drainedMs = Date.now() - t0;
  const cpuAfter = cpuNow(pids);
  const calls = callsAdded(callsBefore, await twinCalls(run.metricsUrl));
  const { events, actions } = await twinsSince(run.client, mark);
  return {
    label,
    requests,
    answeredMs,
    applied: [...seen.values()].map((at) => at - t0),
    watched: watched.size,
    queries: checks,
    drainedMs,
    calls,
    events,
    actions,
    notified: [...notified.values()],
    cpu: Object.fromEntries(Object.keys(pids).map((name) => [name, (cpuAfter[name] ?? NaN) - (cpuBefore[name] ?? NaN)])),
  };
}

/** Checks each expected twin's `state` query, `lanes` at a time, until it shows both its rules (the no_data one with its timer). */
function watchAppliedRules(
  run: FleetRun,
  { pollLanes, recheckMs }: Pick<ChangeOptions, 'pollLanes' | 'recheckMs'>,
  expected: ReadonlyMap<string, { offline: string; noData: string }>,
) {
  return watchApplied(
    async (id) => {
      const rules = expected.get(id);
      if (rules === undefined) return false;
      const state = await run.twins.state(id);
      return (state?.noData.some((t) => t.ruleId === rules.noData) ?? false) && (state?.rules.some((r) => r.id === rules.offline) ?? false);
    },
    pollLanes,
    run.limitMs,
    recheckMs,
  );
}

function printSide(r: SideResult, devices: number, sampleSize: number, historySize: number): void {
  const requestLine = (name: string, times: number[]): string => {
    const s = summarize(times);
    return times.length === 1 ? `${name} ${ms(s.p50)}` : `${name} p50 ${ms(s.p50)} p99 ${ms(s.p99)} max ${ms(s.max)} (n=${s.count})`;
  };
  const applied = summarize(r.applied);
  const notified = summarize(r.notified);
  const events = summarize(r.events);
  const per = (n: number): string => (n / Math.max(1, r.events.length)).toFixed(2);
  printRows(`\nRule change: ${r.label}`, [
    ['requests, answer time', `${requestLine('offline', r.requests.offline)}; ${requestLine('no_data', r.requests.noData)}`],
    ['all answered after', secs(r.answeredMs)],
    [
      'sampled twins applied (state query)',
      `${applied.count} of ${r.watched} twins (of ${devices}) show both rules; the last ${secs(applied.max)} after the first request (p50 ${secs(applied.p50)}); ${r.queries} queries`,
    ],
    ['outbox empty: every twin told', `${secs(r.drainedMs)} after the first request (every intent carried out, retries included)`],
    ['Temporal calls by the gateway', [...r.calls].map(([key, n]) => `${key} ${n}`).join(', ') || 'none'],
    [
      `twin histories (sample of ${historySize})`,
      `events added per twin p50 ${events.p50}, max ${events.max}; actions per twin ${per(total(r.actions))} (${ACTION_KINDS.filter(
        (k) => r.actions[k] > 0,
      )
        .map((k) => `${k} ${per(r.actions[k])}`)
        .join(', ')})`,
    ],
    [
      `offline sample (${sampleSize} devices)`,
      `${notified.count} notified: status message → notification p50 ${secs(notified.p50)}, p99 ${secs(notified.p99)}, max ${secs(notified.max)}`,
    ],
    [
      'CPU seconds, first request → outbox empty',
      Object.entries(r.cpu)
        .map(([name, s]) => `${name} ${s.toFixed(1)}`)
        .join(', '),
    ],
  ]);
}

const updatesOf = (r: SideResult): number => r.calls.get('update rulesChanged sent') ?? 0;
const cpuTotal = (r: SideResult): number => Object.values(r.cpu).reduce((sum, s) => sum + s, 0);

/** Phase `change`: the scoped rules on `scoped`, then per-device rules on `baseline` (same size, same template settings). */
export async function ruleChange(
  run: FleetRun,
  scoped: Fleet,
  baseline: Fleet,
  clients: readonly MqttClient[],
  options: ChangeOptions,
): Promise<void> {
  const devices = scoped.ids.length;
  // The devices brought online before: each publishes `offline` once the change is answered.
  const scopedSample = new Set(scoped.onlineBefore);
  const baselineSample = new Set(baseline.onlineBefore);

  const scopedResult = await measure(
    run,
    scoped,
    clients,
    scopedSample,
    options,
    `scoped (one project-wide offline rule, one template no_data rule over ${devices} devices)`,
    async (ctx) => {
      const [offline, offlineMs] = await timed(() => createRule(scoped.project, { condition: 'offline' }));
      const [noData, noDataMs] = await timed(() =>
        createRule(scoped.project, { templateId: scoped.templateId, condition: 'no_data', duration: options.noDataS }),
      );
      scoped.offlineRuleId = offline;
      ctx.expect(scoped.ids, offline, noData);
      await ctx.publishOffline([...scopedSample]);
      return { offline: [offlineMs], noData: [noDataMs] };
    },
  );
  printSide(scopedResult, devices, scopedSample.size, options.historySample);

  const baselineResult = await measure(
    run,
    baseline,
    clients,
    baselineSample,
    options,
    `per-device baseline (an offline and a no_data device rule for each of ${devices} devices, ${run.lanes} requests at a time)`,
    async (ctx) => {
      const offlineTimes: number[] = [];
      const noDataTimes: number[] = [];
      await pool(baseline.ids, run.lanes, async (id) => {
        const [offline, offlineMs] = await timed(() => createRule(baseline.project, { deviceId: id, condition: 'offline' }));
        const [noData, noDataMs] = await timed(() =>
          createRule(baseline.project, { deviceId: id, condition: 'no_data', duration: options.noDataS }),
        );
        offlineTimes.push(offlineMs);
        noDataTimes.push(noDataMs);
        ctx.expect([id], offline, noData);
        if (baselineSample.has(id)) await ctx.publishOffline([id]);
      });
      return { offline: offlineTimes, noData: noDataTimes };
    },
  );
  printSide(baselineResult, devices, baselineSample.size, options.historySample);

  const row = (name: string, a: number, b: number, show: (v: number) => string): string[] => [name, show(a), show(b), ratio(a, b)];
  const s = (v: number): string => `${(v / 1000).toFixed(1)} s`;
  const n = (v: number): string => String(Math.round(v));
  const f = (v: number): string => v.toFixed(2);
  const perTwin = (r: SideResult): number => total(r.actions) / Math.max(1, r.events.length);
  process.stdout.write(`\nRule change over ${devices} devices, scoped ÷ per-device (same run)\n`);
  printTable(
    ['', 'scoped', 'per-device', 'ratio'],
    [
      row('requests', 2, 2 * devices, n),
      row('all answered', scopedResult.answeredMs, baselineResult.answeredMs, s),
      row('sampled twins show both rules', summarize(scopedResult.applied).max, summarize(baselineResult.applied).max, s),
      row('outbox empty: every twin told', scopedResult.drainedMs, baselineResult.drainedMs, s),
      row('rulesChanged Updates sent', updatesOf(scopedResult), updatesOf(baselineResult), n),
      row('history events per twin (p50)', summarize(scopedResult.events).p50, summarize(baselineResult.events).p50, n),
      row('Temporal actions per twin', perTwin(scopedResult), perTwin(baselineResult), f),
      row('offline notified, p50', summarize(scopedResult.notified).p50, summarize(baselineResult.notified).p50, s),
      row('offline notified, max', summarize(scopedResult.notified).max, summarize(baselineResult.notified).max, s),
      row('CPU s (gateway+worker+temporal+redis)', cpuTotal(scopedResult), cpuTotal(baselineResult), (v) => v.toFixed(1)),
    ],
  );
}
