/**
 * The deployment as separate hosts on one machine (docs/cluster.md): starts every process of
 * topology.ts in its namespace, in dependency order, and gives the scenarios what they act on
 * (kill and start a host's process, cut a host from Redis, the Redis Cluster's masters).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  brokerAnswers,
  brokerProcess,
  createRedisCluster,
  newBrokerAccounts,
  postgresProcess,
  preparePostgres,
  provisionBroker,
  redisCli,
  redisProcesses,
  temporalAnswers,
  temporalProcess,
} from './backends';
import { redisPing } from '../dev-servers/redis';
import type { HostProcess } from './host-process';
import { buildNetwork, setDataLink } from './net';
import { claimRun, releaseRun } from './run-record';
import {
  balancerProcess,
  balancerUrl,
  gatewayProcess,
  readiness,
  type ServiceSecrets,
  waitGatewayReady,
  waitWorkerRunning,
  workerProcess,
} from './services';
import { hostNamed, hostsOf, PORTS } from './topology';
import { waitFor } from './wait';

export interface RedisNodeView {
  host: string;
  id: string;
  role: 'master' | 'replica';
  /** For a replica, its master's host. */
  masterOf: string | null;
  /** Slot ranges of a master. */
  slots: Array<[number, number]>;
  connected: boolean;
}

/** How long a gateway may take to become ready before the harness calls it stuck (a start takes 5-15 s here). */
export const READY_LIMIT_MS = 45_000;

export class Cluster {
  readonly processes = new Map<string, HostProcess>();
  /** What the harness saw outside the faults (a node that never became ready at start, and was restarted); the next table shows and clears it. */
  readonly findings: string[] = [];

  private constructor(
    readonly dir: string,
    readonly secrets: ServiceSecrets,
    private readonly say: (line: string) => void,
  ) {}

  static async start(say: (line: string) => void): Promise<Cluster> {
    const dir = await claimRun(say);
    const logDir = join(dir, 'logs');
    await buildNetwork();
    say(`network: namespaces, bridges and veths made; logs in ${logDir}`);
    const broker = newBrokerAccounts();
    const partial = { adminToken: randomBytes(24).toString('hex'), credentialKey: randomBytes(32).toString('hex'), broker };
    const cluster = new Cluster(dir, { ...partial, databaseUrl: '', temporalAddress: '' }, say);
    try {
      await cluster.startBackends(logDir);
      await cluster.startServices(logDir);
      return cluster;
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }

  private add(p: HostProcess): HostProcess {
    this.processes.set(p.host.name, p);
    return p;
  }

  private async startBackends(logDir: string): Promise<void> {
    const t0 = Date.now();
    const redis = redisProcesses(this.dir, logDir).map((p) => this.add(p));
    const broker = this.add(await brokerProcess(this.dir, logDir, this.secrets.broker));
    const postgres = this.add(await postgresProcess(this.dir, logDir));
    const temporal = this.add(await temporalProcess(logDir));
    await Promise.all([...redis, broker, postgres, temporal].map((p) => p.start()));
    await Promise.all(redis.map((p) => waitFor(`${p.label} PING`, 15_000, () => redisPing(p.host.data as string, PORTS.redis), p)));
    await createRedisCluster();
    await provisionBroker(broker, this.secrets.broker);
    const [databaseUrl, temporalAddress] = await Promise.all([preparePostgres(postgres), temporalAnswers(temporal)]);
    Object.assign(this.secrets, { databaseUrl, temporalAddress });
    this.say(`backends up in ${((Date.now() - t0) / 1000).toFixed(1)} s: Redis Cluster 3+3, Mosquitto, PostgreSQL, Temporal`);
  }

  private async startServices(logDir: string): Promise<void> {
    const t0 = Date.now();
    const workers = hostsOf('worker').map((h) => this.add(workerProcess(h, this.secrets, logDir)));
    const gateways = hostsOf('gateway').map((h) => this.add(gatewayProcess(h, this.secrets, logDir)));
    // The first gateway migrates PostgreSQL alone; the others then find it done.
    const [first, ...rest] = gateways;
    await Promise.all(workers.map((w) => w.start()));
    await first?.start();
    if (first) await this.ensureReady(first.host.name, 'at start');
    await Promise.all(rest.map((g) => g.start()));
    await Promise.all([...rest.map((g) => this.ensureReady(g.host.name, 'at start')), ...workers.map((w) => waitWorkerRunning(w, 90_000))]);
    const balancer = this.add(await balancerProcess(this.dir, logDir));
    await balancer.start();
    await waitFor(
      'the balancer to pass /readyz',
      30_000,
      async () => {
        const res = await fetch(`${balancerUrl()}/readyz`, { signal: AbortSignal.timeout(2000) });
        if (res.status !== 200) throw new Error(`${res.status}`);
      },
      balancer,
    );
    this.say(`services up in ${((Date.now() - t0) / 1000).toFixed(1)} s: 3 gateways, 2 workers, haproxy at ${balancerUrl()}`);
  }

  /**
   * Waits up to READY_LIMIT_MS for a gateway's /readyz; one still unready is recorded in
   * `findings` (with its /readyz answer) and restarted, up to `attempts` times. Returns the seconds
   * it took, or throws when it never became ready.
   */
  async ensureReady(name: string, when: string, attempts = 3): Promise<void> {
    const node = this.process(name);
    for (let attempt = 1; ; attempt++) {
      if (node.exitStatus() !== null) await node.start();
      const started = Date.now();
      try {
        await waitGatewayReady(node, READY_LIMIT_MS);
        return;
      } catch (e) {
        if (node.exitStatus() !== null) throw e;
        const { detail } = await this.readiness(name);
        const finding = `${name} ${when}: unready ${((Date.now() - started) / 1000).toFixed(0)} s (${detail})`;
        this.findings.push(`${finding}${attempt < attempts ? '; restarted' : ''}`);
        this.say(finding);
        if (attempt >= attempts) throw new Error(`${name} never became ready ${when}: ${detail}`);
        await node.kill();
      }
    }
  }

  process(name: string): HostProcess {
    const p = this.processes.get(name);
    if (!p) throw new Error(`no process on ${name}`);
    return p;
  }

  get balancerUrl(): string {
    return balancerUrl();
  }

  get brokerUrl(): string {
    return `mqtt://${hostNamed('mosquitto').service}:${PORTS.broker}`;
  }

  async kill(name: string): Promise<void> {
    await this.process(name).kill();
  }

  /** Starts a host's process again (same command, env, data), and waits for it as at first start. */
  async restart(name: string, readyMs = 90_000): Promise<void> {
    const p = this.process(name);
    const logLength = (await p.log()).length;
    await p.start();
    if (p.host.role === 'gateway') await waitGatewayReady(p, readyMs);
    else if (p.host.role === 'worker') await waitWorkerRunning(p, readyMs, logLength);
    else if (p.host.role === 'redis') await waitFor(`${name} PING`, readyMs, () => redisPing(p.host.data as string, PORTS.redis), p);
    else if (p.host.role === 'broker') await waitFor('the broker', readyMs, () => brokerAnswers(this.secrets.broker), p);
  }

  /**
   * Stops a gateway or worker with SIGTERM (its graceful stop) and starts the build rooted at
   * `root` on its host in its place, waiting for it as at first start (its log goes on in the same
   * file). Returns when the new process started.
   */
  async replace(name: string, root: string, readyMs: number): Promise<number> {
    const old = this.process(name);
    await old.stop(15_000);
    const logDir = join(this.dir, 'logs');
    this.add(
      old.host.role === 'gateway'
        ? gatewayProcess(old.host, this.secrets, logDir, root)
        : workerProcess(old.host, this.secrets, logDir, root),
    );
    const startedAt = Date.now();
    await this.restart(name, readyMs);
    return startedAt;
  }

  /** Starts a gateway again without waiting for it (a scenario watches its readiness itself). */
  async startOnly(name: string): Promise<void> {
    await this.process(name).start();
  }

  readiness(name: string): Promise<{ ready: boolean; detail: string }> {
    return readiness(hostNamed(name));
  }

  cutFromRedis(name: string): Promise<void> {
    return setDataLink(hostNamed(name), false);
  }

  reconnectToRedis(name: string): Promise<void> {
    return setDataLink(hostNamed(name), true);
  }

  /** CLUSTER NODES as seen by the first Redis host that answers. */
  async redisNodes(): Promise<RedisNodeView[]> {
    const byAddress = new Map(hostsOf('redis').map((h) => [`${h.data}:${PORTS.redis}`, h.name]));
    for (const host of hostsOf('redis')) {
      const text = await redisCli(host.data as string, 'cluster', 'nodes').catch(() => '');
      if (!text.trim()) continue;
      const rows = text
        .trim()
        .split('\n')
        .map((line) => line.split(' '));
      const hostOfId = new Map(rows.map((r) => [r[0] as string, byAddress.get((r[1] ?? '').split('@')[0] ?? '') ?? '?']));
      return rows.map((r) => {
        const flags = (r[2] ?? '').split(',');
        const master = flags.includes('master');
        return {
          host: hostOfId.get(r[0] as string) ?? '?',
          id: r[0] as string,
          role: master ? 'master' : 'replica',
          masterOf: master ? null : (hostOfId.get(r[3] ?? '') ?? null),
          slots: r.slice(8).flatMap((s) => {
            const m = /^(\d+)(?:-(\d+))?$/.exec(s);
            return m ? [[Number(m[1]), Number(m[2] ?? m[1])] as [number, number]] : [];
          }),
          connected: r[7] === 'connected' && !flags.includes('fail') && !flags.includes('fail?'),
        };
      });
    }
    throw new Error('no Redis node answered CLUSTER NODES');
  }

  /** The host of the master that serves `slot` now. */
  async masterOfSlot(slot: number): Promise<string> {
    const nodes = await this.redisNodes();
    const master = nodes.find((n) => n.role === 'master' && n.connected && n.slots.some(([a, b]) => slot >= a && slot <= b));
    if (!master) throw new Error(`no connected master serves slot ${slot}`);
    return master.host;
  }

  async keySlot(key: string): Promise<number> {
    const first = hostsOf('redis')[0] as { data: string };
    return Number((await redisCli(first.data, 'cluster', 'keyslot', key)).trim());
  }

  async stop(): Promise<void> {
    const order = ['haproxy', ...hostsOf('gateway').map((h) => h.name), ...hostsOf('worker').map((h) => h.name)];
    for (const name of order) await this.processes.get(name)?.kill();
    await Promise.all([...this.processes.values()].map((p) => p.kill()));
    await releaseRun();
  }
}
