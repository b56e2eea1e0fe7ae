/**
 * The service's own processes on their hosts: gateway nodes (dist/gateway/main.js), twin workers
 * (dist/workers/main.js), and haproxy in front of the gateways with deploy/haproxy.cfg.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findExecutable } from '../dev-servers/find-executable';
import { HostProcess } from './host-process';
import { type GATEWAY_ENV_NAMES, HARNESS_TUNING, hostNamed, hostsOf, type Host, PORTS, type SERVICE_ENV_NAMES } from './topology';
import { PROJECT_ROOT, waitFor } from './wait';
import type { BrokerAccounts } from './backends';

export interface ServiceSecrets {
  adminToken: string;
  credentialKey: string;
  broker: BrokerAccounts;
  databaseUrl: string;
  temporalAddress: string;
}

type ServiceEnvName = (typeof SERVICE_ENV_NAMES)[number];
type GatewayEnvName = (typeof GATEWAY_ENV_NAMES)[number];

/** x-service-env of docker-compose.yml, with this cluster's addresses. */
export function serviceEnv(secrets: ServiceSecrets): Record<ServiceEnvName, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    REDIS_CLUSTER_NODES: hostsOf('redis')
      .map((h) => `${h.data}:${PORTS.redis}`)
      .join(','),
    MQTT_URL: `mqtt://${hostNamed('mosquitto').service}:${PORTS.broker}`,
    MQTT_USERNAME: secrets.broker.serviceUsername,
    MQTT_PASSWORD: secrets.broker.servicePassword,
    MQTT_DYNSEC_USERNAME: secrets.broker.dynsecUsername,
    MQTT_DYNSEC_PASSWORD: secrets.broker.dynsecPassword,
    TEMPORAL_ADDRESS: secrets.temporalAddress,
    DATABASE_URL: secrets.databaseUrl,
    ADMIN_TOKEN: secrets.adminToken,
    CREDENTIAL_KEY: secrets.credentialKey,
  };
}

/** x-gateway of docker-compose.yml: the node's own settings. */
export function gatewayEnv(host: Host): Record<GatewayEnvName, string> {
  return { HOST: '0.0.0.0', PORT: String(PORTS.gateway), METRICS_PORT: String(PORTS.metrics), TRUST_PROXY: '1', NODE_ID: host.name };
}

function tuning(): Record<string, string> {
  return Object.fromEntries(Object.entries(HARNESS_TUNING).map(([k, v]) => [k, v.value]));
}

function distEntry(root: string, path: string): string {
  const file = join(root, 'dist', path);
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npm run build)`);
  return file;
}

/** A gateway node of the build rooted at `root` (today's tree, or the rolling upgrade's next build). */
export function gatewayProcess(host: Host, secrets: ServiceSecrets, logDir: string, root = PROJECT_ROOT): HostProcess {
  const env = { ...serviceEnv(secrets), ...gatewayEnv(host), ...tuning() };
  const spec = { command: process.execPath, args: ['--max-semi-space-size=64', distEntry(root, 'gateway/main.js')], env, cwd: root };
  return new HostProcess(host, host.name, spec, join(logDir, `${host.name}.log`));
}

export function workerProcess(host: Host, secrets: ServiceSecrets, logDir: string, root = PROJECT_ROOT): HostProcess {
  const env = { ...serviceEnv(secrets), ...tuning() };
  const spec = { command: process.execPath, args: [distEntry(root, 'workers/main.js')], env, cwd: root };
  return new HostProcess(host, host.name, spec, join(logDir, `${host.name}.log`));
}

export function gatewayUrl(host: Host): string {
  return `http://${host.service}:${PORTS.gateway}`;
}

/** GET /readyz of one node, straight (not through the balancer): its status and body, or the error. */
export async function readiness(host: Host): Promise<{ ready: boolean; detail: string }> {
  try {
    const res = await fetch(`${gatewayUrl(host)}/readyz`, { signal: AbortSignal.timeout(3000) });
    const body = await res.text();
    if (res.status === 200) return { ready: true, detail: 'ready' };
    const parsed = JSON.parse(body) as { error?: { details?: { field: string; problem: string }[] } };
    const details = parsed.error?.details?.map((d) => `${d.field}: ${d.problem}`).join('; ');
    return { ready: false, detail: `${res.status} ${details ?? body.slice(0, 200)}` };
  } catch (e) {
    return { ready: false, detail: (e as Error).message };
  }
}

export async function waitGatewayReady(node: HostProcess, timeoutMs: number): Promise<void> {
  await waitFor(
    `${node.label} /readyz 200`,
    timeoutMs,
    async () => {
      const r = await readiness(node.host);
      if (!r.ready) throw new Error(r.detail);
    },
    node,
    500,
  );
}

export async function waitWorkerRunning(node: HostProcess, timeoutMs: number, after = 0): Promise<void> {
  await waitFor(
    `${node.label} to poll its task queue`,
    timeoutMs,
    async () => {
      const log = (await node.log()).slice(after);
      if (!log.includes('twin worker running')) throw new Error('not yet');
    },
    node,
    500,
  );
}

/** deploy/haproxy.cfg with each `server gateway-N gateway-N:3000` pointed at that gateway's service address. */
export async function balancerConfig(): Promise<string> {
  const text = await readFile(join(PROJECT_ROOT, 'deploy', 'haproxy.cfg'), 'utf8');
  let out = text;
  for (const host of hostsOf('gateway')) {
    const line = new RegExp(`^(\\s*server ${host.name} )${host.name}:${PORTS.gateway}( .*)$`, 'm');
    if (!line.test(out)) throw new Error(`deploy/haproxy.cfg has no "server ${host.name} ${host.name}:${PORTS.gateway} …" line`);
    out = out.replace(line, `$1${host.service}:${PORTS.gateway}$2`);
  }
  return out;
}

export async function balancerProcess(dir: string, logDir: string): Promise<HostProcess> {
  const haproxy = findExecutable('haproxy', ['/usr/sbin']);
  if (!haproxy) throw new Error("haproxy not found: run `npm run setup` (installs Debian's haproxy)");
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, await balancerConfig());
  return new HostProcess(hostNamed('haproxy'), 'haproxy', { command: haproxy, args: ['-db', '-f', file] }, join(logDir, 'haproxy.log'));
}

export function balancerUrl(): string {
  return `http://${hostNamed('haproxy').service}:${PORTS.balancer}`;
}
