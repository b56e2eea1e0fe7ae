/**
 * One scenario on a running cluster: every gateway ready first, then the load (an account and
 * devices of its own), a warm-up, the fault (the quiet device falls silent and the leaver leaves
 * at that moment), the recovery, a tail of steady load, then the drain and the checks, printed as
 * one table.
 */
import { loadavg } from 'node:os';
import { commandRows, settleCommands, watcherRows } from './checks/service';
import { readAlarms, readNotifications, readRulePins, ruleRows } from './checks/rules';
import { formatTable, type Row, seconds } from './checks/row';
import { statusRows } from './checks/status';
import { drainHistory, valueRows } from './checks/values';
import type { Cluster } from './cluster';
import { BURSTS } from './load/devices';
import { DEFAULT_LOAD, Load, type LoadOptions } from './load/load';
import type { Scenario } from './scenario';
import { readiness } from './services';
import { HARNESS_TUNING, hostsOf } from './topology';
import { sleep } from './wait';

export interface ScenarioResult {
  name: string;
  rows: Row[];
  failed: Row[];
  seconds: number;
  table: string;
}

const WARM_UP_MS = 8000;
/** Steady load after the recovery: long enough for the quiet device's heartbeat + 2 s and a no_data silence. */
const TAIL_MS = 15_000;

const load1 = (): string => loadavg()[0]?.toFixed(2) ?? '?';

/** Samples every gateway's /readyz once a second: how long each was unready during the scenario. */
function readinessWatch(): { stop(): Promise<Row> } {
  const unready = new Map<string, number>();
  const last = new Map<string, string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const results = await Promise.all(hostsOf('gateway').map(async (h) => [h.name, await readiness(h)] as const));
      for (const [name, r] of results) {
        if (!r.ready) unready.set(name, (unready.get(name) ?? 0) + 1), last.set(name, r.detail);
      }
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const end = await Promise.all(hostsOf('gateway').map(async (h) => [h.name, await readiness(h)] as const));
      const notReady = end.filter(([, r]) => !r.ready);
      const during = hostsOf('gateway')
        .map((h) => `${h.name} ${unready.get(h.name) ?? 0}`)
        .join(', ');
      return {
        check: 'gateways ready at the end',
        verdict: notReady.length ? 'FAIL' : 'ok',
        figures: `seconds unready during the scenario: ${during}; ${notReady.length ? `UNREADY at the end: ${notReady.map(([n, r]) => `${n} (${r.detail})`).join('; ')}` : 'all ready at the end'}`,
      };
    },
  };
}

export async function runScenario(
  cluster: Cluster,
  scenario: Scenario,
  say: (line: string) => void,
  options: LoadOptions = DEFAULT_LOAD,
): Promise<ScenarioResult> {
  const t0 = Date.now();
  const loadBefore = load1();
  for (const g of hostsOf('gateway')) await cluster.ensureReady(g.name, `before ${scenario.name}`);
  say(`scenario ${scenario.name}: ${scenario.what}`);
  const load = await Load.start(
    { balancer: cluster.balancerUrl, broker: cluster.brokerUrl, adminToken: cluster.secrets.adminToken },
    scenario.name,
    options,
    say,
  );
  const rows: Row[] = [];
  const timeline: string[] = [];
  try {
    await sleep(WARM_UP_MS);
    const watch = readinessWatch();
    await load.fault();
    const faultAt = load.faultAt as number;
    const mark = (event: string): void => {
      timeline.push(`+${seconds(Date.now() - faultAt)} ${event}`);
      say(`  +${seconds(Date.now() - faultAt)} ${event}`);
    };
    const faultRows: Row[] = [];
    await scenario.run({ cluster, load, rows: faultRows, mark });
    const recovered = Date.now();
    await sleep(Math.max(TAIL_MS, faultAt + Number(HARNESS_TUNING.DEVICE_HEARTBEAT_TIMEOUT_S?.value) * 1000 + 5000 - Date.now()));
    await load.stopSending();
    mark('load stopped; draining');
    // The last V3 silence must outlast the no_data rule before its notification is counted.
    await sleep(BURSTS.noDataS * 1000 + 4000);
    const drainFrom = Date.now();
    const records = load.devices.map((d) => d.record);
    const stored = await drainHistory(load.api, records, load.startedAt);
    const drainMs = Date.now() - drainFrom;
    const rulePins = await readRulePins(cluster.secrets.databaseUrl, [...load.rules.keys()]);
    const states = await settleCommands(load.api, load.writer.writes);
    const checkedAt = Date.now();
    const [alarms, notifications] = await Promise.all([readAlarms(load.api, load.projectId), readNotifications(load.api, load.projectId)]);
    await sleep(2000);
    const watchers = await load.finishWatchers();
    const readinessRow = await watch.stop();
    rows.push(
      ...valueRows(records, stored, drainMs, faultAt),
      ...statusRows(records, load.sampler.samples, Number(HARNESS_TUNING.DEVICE_HEARTBEAT_TIMEOUT_S?.value)),
      ...ruleRows(records, load.rules, rulePins, alarms, notifications, checkedAt),
      ...commandRows(load.writer.writes, states, faultAt),
      ...watcherRows(watchers),
      ...faultRows,
      readinessRow,
      {
        check: 'timeline',
        verdict: 'info',
        figures: `${timeline.join('; ')}; recovered ${seconds(recovered - faultAt)} after the fault; scenario ${seconds(Date.now() - t0)} in all; load average ${loadBefore} → ${load1()} (${
          options.devices + 2
        } devices × ${options.rate} values/s, ${options.watchers} clients)`,
      },
    );
  } finally {
    await load.close();
  }
  // A gateway that never became ready at start or before this scenario (and was restarted): shown once, in this table.
  const findings = cluster.findings.splice(0);
  if (findings.length) rows.push({ check: 'readiness outside the fault', verdict: 'FAIL', figures: findings.join('; ') });
  const failed = rows.filter((r) => r.verdict === 'FAIL');
  const table = formatTable(`\n${scenario.name}: ${scenario.what} — ${failed.length ? `${failed.length} FAILED` : 'passed'}`, rows);
  return { name: scenario.name, rows, failed, seconds: (Date.now() - t0) / 1000, table };
}
