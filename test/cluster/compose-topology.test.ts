/**
 * docker-compose.yml and the cluster harness (scripts/cluster/, docs/cluster.md) describe one
 * deployment: the same services in the same roles and counts, the same env names for gateways and
 * workers, the same Redis Cluster settings and replica count, the same broker config and the same
 * balancer config (deploy/haproxy.cfg, one server per gateway). A service in one and not the other
 * fails here, so the two cannot drift apart silently. No server is started.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerConfig } from '../../scripts/cluster/backends';
import { balancerConfig, gatewayEnv, serviceEnv } from '../../scripts/cluster/services';
import {
  GATEWAY_ENV_NAMES,
  HOSTS,
  hostsOf,
  REDIS_NODES,
  REDIS_REPLICAS_PER_MASTER,
  REDIS_SETTINGS,
  type Role,
  SERVICE_ENV_NAMES,
} from '../../scripts/cluster/topology';

const ROOT = join(__dirname, '..', '..');
// js-yaml (v3, with YAML merge keys) comes with jest; the compose file uses anchors and `<<`.
const { load } = require('js-yaml') as { load(text: string): unknown };

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string>;
  volumes?: string[];
}

const compose = load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, ComposeService> };
const services = compose.services;

/** Compose services the harness has no host for, each with why. */
const COMPOSE_ONLY: Record<string, string> = {
  postgresql: "Temporal's own database: the harness runs the Temporal dev server, which keeps its state itself",
  'temporal-ui': 'a UI (profile ui), not part of the service',
  'mosquitto-init': 'one-shot: makes the dynamic security JSON (the harness runs mosquitto_ctrl dynsec init)',
  'mosquitto-provision': "one-shot: the service's broker account (the harness sends the same dynsec commands)",
  'redis-cluster-init': 'one-shot: redis-cli --cluster create (the harness runs it from its own namespace)',
  prometheus: 'monitoring beside the service',
  grafana: 'monitoring beside the service',
};

/** The role a compose service plays, read from the service itself (not from its name). */
function roleOf(name: string, s: ComposeService): Role | null {
  const command = Array.isArray(s.command) ? s.command : [];
  if (s.image === 'device-data-service') return command.join(' ').includes('dist/workers/main.js') ? 'worker' : 'gateway';
  if (command[0] === 'redis-server') return 'redis';
  if (s.image?.startsWith('haproxy')) return 'balancer';
  if ((s.image?.startsWith('eclipse-mosquitto') || s.image?.startsWith('dds-mosquitto')) && s.command === undefined) return 'broker';
  if (s.image?.startsWith('temporalio/auto-setup')) return 'temporal';
  if (s.image?.startsWith('postgres') && s.environment?.POSTGRES_DB === 'dds') return 'postgres';
  if (name in COMPOSE_ONLY) return null;
  throw new Error(
    `docker-compose.yml service ${name} has no role here: give the harness a host for it, or add it to COMPOSE_ONLY with why`,
  );
}

const byRole = new Map<Role, string[]>();
for (const [name, s] of Object.entries(services)) {
  const role = roleOf(name, s);
  if (role) byRole.set(role, [...(byRole.get(role) ?? []), name]);
}

const sorted = (xs: readonly string[]): string[] => [...xs].sort();

describe('docker-compose.yml and the cluster harness describe the same deployment', () => {
  it('has the same services in the same roles and counts', () => {
    const roles = [...new Set(HOSTS.map((h) => h.role))];
    for (const role of roles)
      expect({ role, services: sorted(byRole.get(role) ?? []) }).toEqual({ role, services: sorted(hostsOf(role).map((h) => h.name)) });
    expect(sorted([...byRole.keys()])).toEqual(sorted(roles));
  });

  it('gives gateways and workers the same env names', () => {
    const secrets = {
      adminToken: 'a',
      credentialKey: 'k',
      databaseUrl: 'postgres://x',
      temporalAddress: 't:7233',
      broker: { serviceUsername: 's', servicePassword: 'p', dynsecUsername: 'd', dynsecPassword: 'q' },
    };
    const harnessService = Object.keys(serviceEnv(secrets));
    const harnessGateway = [...harnessService, ...Object.keys(gatewayEnv(hostsOf('gateway')[0] as never))];
    for (const name of byRole.get('gateway') ?? []) {
      expect({ name, env: sorted(Object.keys(services[name]?.environment ?? {})) }).toEqual({ name, env: sorted(harnessGateway) });
      // Each node's broker sessions are named after NODE_ID: the harness uses the service name too.
      expect(services[name]?.environment?.NODE_ID).toBe(name);
    }
    for (const name of byRole.get('worker') ?? []) {
      expect({ name, env: sorted(Object.keys(services[name]?.environment ?? {})) }).toEqual({ name, env: sorted(harnessService) });
    }
    expect(sorted(harnessGateway)).toEqual(sorted([...SERVICE_ENV_NAMES, ...GATEWAY_ENV_NAMES]));
  });

  it('runs one Redis Cluster: the same node settings, every node a seed, replicas per master as the harness', () => {
    const redis = byRole.get('redis') ?? [];
    expect(redis).toHaveLength(REDIS_NODES);
    for (const name of redis) {
      const command = services[name]?.command as string[];
      expect({ name, settings: command.slice(3, 3 + REDIS_SETTINGS.length) }).toEqual({ name, settings: [...REDIS_SETTINGS] });
      expect(command.slice(0, 3)).toEqual(['redis-server', '--port', '6379']);
    }
    const seeds = services['gateway-1']?.environment?.REDIS_CLUSTER_NODES?.split(',') ?? [];
    expect(sorted(seeds)).toEqual(sorted(redis.map((n) => `${n}:6379`)));
    const init = [services['redis-cluster-init']?.command ?? []].flat().join(' ');
    expect(init).toContain(`--cluster-replicas ${REDIS_REPLICAS_PER_MASTER}`);
    for (const name of redis) expect(init).toContain(name);
  });

  it('balances with deploy/haproxy.cfg, one server per gateway, which the harness runs too', async () => {
    const balancer = services[(byRole.get('balancer') ?? [])[0] as string];
    expect(balancer?.volumes?.some((v) => v.startsWith('./deploy/haproxy.cfg:'))).toBe(true);
    const cfg = readFileSync(join(ROOT, 'deploy', 'haproxy.cfg'), 'utf8');
    const servers = [...cfg.matchAll(/^\s*server (\S+) (\S+):3000 /gm)].map((m) => [m[1], m[2]]);
    expect(sorted(servers.map(([n]) => n as string))).toEqual(sorted(byRole.get('gateway') ?? []));
    for (const [name, address] of servers) expect(address).toBe(name);
    const rendered = await balancerConfig();
    for (const g of hostsOf('gateway')) expect(rendered).toContain(`server ${g.name} ${g.service}:3000 `);
    expect(cfg).toMatch(/option httpchk GET \/readyz/);
    expect(cfg).toMatch(/balance roundrobin/);
  });

  it('runs the broker with deploy/mosquitto/mosquitto.conf, which the harness runs too', async () => {
    const broker = services[(byRole.get('broker') ?? [])[0] as string];
    expect(broker?.volumes?.some((v) => v.startsWith('./deploy/mosquitto/mosquitto.conf:'))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'dds-compose-topology-'));
    const rendered = await brokerConfig(dir, 'dynsec-admin').finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(rendered).toMatch(/^persistence true$/m);
    expect(rendered).toMatch(/^plugin \S+dds_device_auth\.so\nplugin_opt_admin dynsec-admin$/m);
    expect(rendered).toMatch(/^plugin_opt_redis 10\.77\.1\.\d+:\d+(,10\.77\.1\.\d+:\d+)+$/m);
    expect(rendered).toMatch(/^listener 1883 10\.77\.0\.\d+$/m);
  });
});
