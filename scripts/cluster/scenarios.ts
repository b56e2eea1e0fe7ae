/**
 * The faults a scenario makes while the load runs (docs/cluster.md, "Scenarios"). Each returns
 * once the cluster has recovered (or the harness gave up waiting), adding rows for what it saw:
 * how long a node took to come back, a replica's promotion, readiness of the other nodes.
 */
import { keys } from '../../common/redis-keys';
import { seconds } from './checks/row';
import type { Load } from './load/load';
import type { Scenario, ScenarioContext } from './scenario';
import { readiness } from './services';
import { hostNamed, hostsOf } from './topology';
import { rollingUpgrade } from './upgrade/rolling-upgrade';
import { sleep, waitFor } from './wait';

/** How long a restarted gateway may take to be ready before the scenario calls it stuck. */
const RESTART_READY_MS = 45_000;

/** The gateway most Socket.IO clients are on now (so killing or cutting it moves clients), else gateway-1. */
function busiestGateway(load: Load): string {
  const counts = new Map<string, number>();
  for (const w of load.watchers) {
    const node = w.currentNode;
    if (node) counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  const best = [...counts.entries()].filter(([n]) => n.startsWith('gateway-')).sort((a, b) => b[1] - a[1])[0];
  return best?.[0] ?? 'gateway-1';
}

/** Starts a gateway and waits for its /readyz; a row saying how long, or that it stayed unready (and why). */
async function startGatewayAndWatch(ctx: ScenarioContext, name: string, why: string): Promise<void> {
  const started = Date.now();
  ctx.mark(`${name} started again`);
  await ctx.cluster.startOnly(name);
  let last = '';
  try {
    await waitFor(
      `${name} ready`,
      RESTART_READY_MS,
      async () => {
        const r = await ctx.cluster.readiness(name);
        last = r.detail;
        if (!r.ready) throw new Error(r.detail);
      },
      ctx.cluster.process(name),
      500,
    );
    ctx.mark(`${name} ready`);
    ctx.rows.push({ check: `${name} back (${why})`, verdict: 'ok', figures: `ready ${seconds(Date.now() - started)} after its start` });
  } catch {
    ctx.mark(`${name} still unready`);
    ctx.rows.push({
      check: `${name} back (${why})`,
      verdict: 'FAIL',
      figures: `still unready ${seconds(Date.now() - started)} after its start: /readyz ${last}`,
    });
  }
}

/** The master serving most of the load's devices now. */
async function busiestMaster(ctx: ScenarioContext): Promise<string> {
  const counts = new Map<string, number>();
  for (const device of ctx.load.devices) {
    const master = await ctx.cluster.masterOfSlot(await ctx.cluster.keySlot(keys.device(device.record.id)));
    counts.set(master, (counts.get(master) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'redis-1';
}

/** SIGKILLs a master; waits for its replica's promotion; starts it again (it rejoins as a replica). */
async function killMaster(ctx: ScenarioContext, beforeRestart?: () => Promise<void>): Promise<void> {
  const master = await busiestMaster(ctx);
  const nodes = await ctx.cluster.redisNodes();
  const replica = nodes.find((n) => n.masterOf === master)?.host ?? '?';
  const killedAt = Date.now();
  ctx.mark(`${master} (master, replica ${replica}) SIGKILLed`);
  await ctx.cluster.kill(master);
  let promoted = false;
  try {
    await waitFor(`${replica} promoted`, 30_000, async () => {
      const now = await ctx.cluster.redisNodes();
      if (!now.some((n) => n.host === replica && n.role === 'master' && n.connected)) throw new Error('not yet');
    });
    promoted = true;
    ctx.mark(`${replica} promoted`);
  } catch {
    ctx.mark(`${replica} not promoted within 30 s`);
  }
  ctx.rows.push({
    check: `${master} killed: failover`,
    verdict: promoted ? 'ok' : 'FAIL',
    figures: promoted
      ? `replica ${replica} promoted ${seconds(Date.now() - killedAt)} after the kill`
      : `replica ${replica} not promoted within 30 s`,
  });
  await beforeRestart?.();
  await sleep(3000);
  ctx.mark(`${master} started again`);
  await ctx.cluster.restart(master, 30_000);
  await waitFor(`${master} to rejoin as a replica`, 30_000, async () => {
    const now = await ctx.cluster.redisNodes();
    if (!now.some((n) => n.host === master && n.role === 'replica' && n.connected)) throw new Error('not yet');
  }).then(
    () => ctx.mark(`${master} rejoined as a replica`),
    () => ctx.mark(`${master} did not rejoin within 30 s`),
  );
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'gateway-kill',
    what: 'a gateway SIGKILLed, started again 10 s later',
    async run(ctx) {
      const victim = busiestGateway(ctx.load);
      ctx.mark(`${victim} SIGKILLed`);
      await ctx.cluster.kill(victim);
      await sleep(10_000);
      await startGatewayAndWatch(ctx, victim, 'killed');
    },
  },
  {
    name: 'worker-kill',
    what: 'a twin worker SIGKILLed, started again 10 s later',
    async run(ctx) {
      ctx.mark('worker-1 SIGKILLed');
      await ctx.cluster.kill('worker-1');
      await sleep(10_000);
      const started = Date.now();
      await ctx.cluster.restart('worker-1', 60_000);
      ctx.mark('worker-1 polling again');
      ctx.rows.push({ check: 'worker-1 back', verdict: 'ok', figures: `polling ${seconds(Date.now() - started)} after its start` });
    },
  },
  {
    name: 'redis-master-kill',
    what: 'the Redis master of most devices SIGKILLed (its replica promoted), then a gateway restarted after the failover',
    async run(ctx) {
      await killMaster(ctx);
      const victim = busiestGateway(ctx.load);
      ctx.mark(`${victim} SIGKILLed (after the failover)`);
      await ctx.cluster.kill(victim);
      await startGatewayAndWatch(ctx, victim, 'restarted after the failover');
    },
  },
  {
    name: 'gateway-redis-cut',
    what: 'a gateway cut off from Redis for 20 s (its data link down), the others untouched',
    async run(ctx) {
      const victim = busiestGateway(ctx.load);
      const others = hostsOf('gateway').filter((h) => h.name !== victim);
      ctx.mark(`${victim} data link down`);
      await ctx.cluster.cutFromRedis(victim);
      const unreadyOthers = new Map<string, number>();
      let victimUnreadyAfter: number | null = null;
      const cutAt = Date.now();
      while (Date.now() - cutAt < 20_000) {
        const [mine, ...theirs] = await Promise.all([readiness(hostNamed(victim)), ...others.map((h) => readiness(h))]);
        if (!mine?.ready && victimUnreadyAfter === null) victimUnreadyAfter = Date.now() - cutAt;
        theirs.forEach(
          (r, i) => !r.ready && unreadyOthers.set(others[i]?.name ?? '?', (unreadyOthers.get(others[i]?.name ?? '?') ?? 0) + 1),
        );
        await sleep(1000);
      }
      ctx.mark(`${victim} data link up`);
      await ctx.cluster.reconnectToRedis(victim);
      const restoredAt = Date.now();
      const back = await waitFor(`${victim} ready`, 60_000, async () => {
        if (!(await readiness(hostNamed(victim))).ready) throw new Error('unready');
      }).then(
        () => Date.now() - restoredAt,
        () => null,
      );
      ctx.mark(back === null ? `${victim} still unready` : `${victim} ready`);
      ctx.rows.push({
        check: `${victim} cut from Redis 20 s`,
        verdict: back === null || unreadyOthers.size ? 'FAIL' : 'ok',
        figures:
          `${victim} unready ${victimUnreadyAfter === null ? 'never (!)' : `${seconds(victimUnreadyAfter)} after the cut`}, ` +
          `${back === null ? 'still unready 60 s after the link came back' : `ready ${seconds(back)} after the link came back`}; ` +
          `other gateways ${unreadyOthers.size ? `unready in ${[...unreadyOthers].map(([n, c]) => `${n} ${c} samples`).join(', ')}` : 'ready in every sample'}`,
      });
    },
  },
  {
    name: 'broker-restart',
    what: 'Mosquitto stopped (SIGTERM, its persistence saved) and started again',
    async run(ctx) {
      ctx.mark('mosquitto stopped');
      const stopped = Date.now();
      await ctx.cluster.process('mosquitto').stop(10_000);
      await sleep(2000);
      await ctx.cluster.restart('mosquitto', 30_000);
      ctx.mark('mosquitto back');
      const gateways = hostsOf('gateway').map((h) => h.name);
      const ready = await waitFor('every gateway ready', 60_000, async () => {
        const all = await Promise.all(gateways.map((g) => ctx.cluster.readiness(g)));
        if (!all.every((r) => r.ready)) throw new Error('unready');
      }).then(
        () => true,
        () => false,
      );
      ctx.mark(ready ? 'every gateway ready' : 'a gateway still unready');
      ctx.rows.push({
        check: 'broker restarted',
        verdict: ready ? 'ok' : 'FAIL',
        figures: `broker down ${seconds(Date.now() - stopped)} in all; every gateway ${ready ? 'ready again' : 'NOT ready within 60 s'}`,
      });
    },
  },
  {
    name: 'gateway-then-master',
    what: 'a gateway SIGKILLed, then (while it is down) the Redis master of most devices SIGKILLed; the gateway started after the failover',
    async run(ctx) {
      const victim = busiestGateway(ctx.load);
      ctx.mark(`${victim} SIGKILLed`);
      await ctx.cluster.kill(victim);
      await sleep(5000);
      await killMaster(ctx, () => startGatewayAndWatch(ctx, victim, 'killed, started after the failover'));
    },
  },
  rollingUpgrade,
];

/** `npm run cluster -- all`: the issue's six (gateway-then-master, the jest test's, runs by name). */
export const ALL = ['gateway-kill', 'worker-kill', 'redis-master-kill', 'gateway-redis-cut', 'broker-restart', 'rolling-upgrade'] as const;

export function scenarioNamed(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`no scenario ${name}; known: ${SCENARIOS.map((s) => s.name).join(', ')}, all`);
  return found;
}
