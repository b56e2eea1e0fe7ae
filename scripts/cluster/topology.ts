/**
 * The cluster the harness builds (docs/cluster.md): which hosts, on which network, with which
 * address, running what. docker-compose.yml describes the same deployment with compose service
 * names; test/cluster/compose-topology.test.ts checks the two against each other (services,
 * roles, counts, each service's env names, the Redis, broker and balancer settings).
 *
 * Two bridges in the root namespace, each host a network namespace of its own:
 *   service network 10.77.0.0/24: the balancer, gateways, workers, broker, Temporal, PostgreSQL;
 *   data network    10.77.1.0/24: the six Redis nodes, and a second interface of every gateway,
 *                   worker (so one node can be cut off from Redis alone: its `data0` down) and
 *                   of the broker, whose device plugin reads devices' token hashes in Redis.
 * The harness itself (root namespace) is .1 on both, and talks to nothing else.
 */

/** Every namespace, bridge and veth the harness makes starts with this: how leftovers are found. */
export const PREFIX = 'ddsc-';

export const SERVICE_NET = { bridge: `${PREFIX}svc`, prefix: '10.77.0', ifname: 'svc0' } as const;
export const DATA_NET = { bridge: `${PREFIX}data`, prefix: '10.77.1', ifname: 'data0' } as const;
/** The harness's own address on each network (the bridges'). */
export const HARNESS_ADDRESS = { service: `${SERVICE_NET.prefix}.1`, data: `${DATA_NET.prefix}.1` } as const;

export type Role = 'balancer' | 'gateway' | 'worker' | 'redis' | 'broker' | 'temporal' | 'postgres';

export interface Host {
  /** The docker-compose service name of the same process. */
  name: string;
  role: Role;
  /** Its network namespace. */
  netns: string;
  /** Its address on the service network, when it has one. */
  service?: string;
  /** Its address on the data network, when it has one. */
  data?: string;
}

export const GATEWAYS = 3;
export const WORKERS = 2;
export const REDIS_MASTERS = 3;
export const REDIS_REPLICAS_PER_MASTER = 1;
export const REDIS_NODES = REDIS_MASTERS * (1 + REDIS_REPLICAS_PER_MASTER);

export const PORTS = { gateway: 3000, metrics: 9464, balancer: 80, redis: 6379, broker: 1883, temporal: 7233, postgres: 5432 } as const;

function host(name: string, role: Role, service: number | null, data: number | null): Host {
  return {
    name,
    role,
    netns: `${PREFIX}${name}`,
    ...(service === null ? {} : { service: `${SERVICE_NET.prefix}.${service}` }),
    ...(data === null ? {} : { data: `${DATA_NET.prefix}.${data}` }),
  };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** Every host, in start order of their kind. Names are docker-compose.yml's service names. */
export const HOSTS: readonly Host[] = [
  host('haproxy', 'balancer', 2, null),
  host('mosquitto', 'broker', 31, 41),
  host('temporal', 'temporal', 32, null),
  host('postgres', 'postgres', 33, null),
  ...range(REDIS_NODES).map((i) => host(`redis-${i}`, 'redis', null, 10 + i)),
  ...range(GATEWAYS).map((i) => host(`gateway-${i}`, 'gateway', 10 + i, 20 + i)),
  ...range(WORKERS).map((i) => host(`worker-${i}`, 'worker', 20 + i, 30 + i)),
];

export function hostsOf(role: Role): Host[] {
  return HOSTS.filter((h) => h.role === role);
}

export function hostNamed(name: string): Host {
  const found = HOSTS.find((h) => h.name === name);
  if (!found) throw new Error(`no host ${name} in the cluster topology`);
  return found;
}

/**
 * redis-server's settings on every node, after `--port` (the same list is each Redis service's
 * `command` in docker-compose.yml, which the compose test checks): a cluster node with AOF, a
 * 5 s node timeout (a dead master's replica is promoted in about 6 s), no RDB snapshots, reachable
 * from the other hosts.
 */
export const REDIS_SETTINGS = [
  '--cluster-enabled',
  'yes',
  '--cluster-node-timeout',
  '5000',
  '--appendonly',
  'yes',
  '--save',
  '',
  // A node with no password answers only loopback otherwise; the networks are the harness's own (compose: its private network).
  '--protected-mode',
  'no',
] as const;

/**
 * The env every gateway and worker gets in docker-compose.yml (`x-service-env`), and the
 * gateways' own (`x-gateway`). The harness sets exactly these names (values for its addresses),
 * plus HARNESS_TUNING below. Checked against the compose file by the compose test.
 */
export const SERVICE_ENV_NAMES = [
  'NODE_ENV',
  'LOG_LEVEL',
  'REDIS_CLUSTER_NODES',
  'MQTT_URL',
  'MQTT_USERNAME',
  'MQTT_PASSWORD',
  'MQTT_DYNSEC_USERNAME',
  'MQTT_DYNSEC_PASSWORD',
  'TEMPORAL_ADDRESS',
  'DATABASE_URL',
  'ADMIN_TOKEN',
  'CREDENTIAL_KEY',
] as const;
export const GATEWAY_ENV_NAMES = ['HOST', 'PORT', 'METRICS_PORT', 'TRUST_PROXY', 'NODE_ID'] as const;

/**
 * What the harness sets beyond docker-compose.yml, each for a run of minutes rather than months;
 * none changes what a node does, only how soon (docs/cluster.md, "Settings").
 */
export const HARNESS_TUNING: Record<string, { value: string; why: string }> = {
  DEVICE_HEARTBEAT_TIMEOUT_S: { value: '10', why: 'a status check a scenario can wait for (compose: the default 60)' },
  THRESHOLD_NOTIFY_INTERVAL_S: { value: '0', why: 'every threshold crossing notifies, so each one can be counted' },
  REGISTER_MAX_PER_ADDRESS: { value: '1000', why: 'every scenario registers its account from the harness address' },
  SHUTDOWN_GRACE_MS: { value: '3000', why: 'a stop at the end of a run is not a graceful drain to wait for' },
};
