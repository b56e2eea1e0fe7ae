/**
 * The harness's network: one network namespace per host, veth pairs on two bridges in the root
 * namespace (topology.ts), and what a scenario does to it (a host's data link down). Everything
 * made is named with PREFIX, so removeLeftovers() finds what a killed run left behind.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { findExecutable } from '../dev-servers/find-executable';
import { DATA_NET, HARNESS_ADDRESS, HOSTS, type Host, PREFIX, SERVICE_NET } from './topology';

const run = promisify(execFile);

let ipBinary: string | null | undefined;

/** iproute2's `ip`, on PATH or in /usr/sbin (a normal user's PATH often lacks it). */
export function ipCommand(): string {
  ipBinary ??= findExecutable('ip', ['/usr/sbin', '/sbin']);
  if (!ipBinary) throw new Error('iproute2 (`ip`) not found: install iproute2');
  return ipBinary;
}

export async function ip(...args: string[]): Promise<string> {
  try {
    return (await run(ipCommand(), args, { timeout: 15_000 })).stdout;
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(`ip ${args.join(' ')}: ${(err.stderr ?? err.message).trim()}`);
  }
}

/**
 * Why the harness cannot run here, or null when it can: it needs root (namespaces, veths) and an
 * `ip` that can make a namespace (some containers forbid it). Probes with a namespace of its own.
 */
export async function cannotRunHere(): Promise<string | null> {
  if (process.platform !== 'linux') return `the cluster harness needs Linux network namespaces (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'the cluster harness needs root (it makes network namespaces, bridges and veth pairs)';
  try {
    ipCommand();
  } catch (e) {
    return (e as Error).message;
  }
  const probe = `${PREFIX}probe-${process.pid}`;
  try {
    await ip('netns', 'add', probe);
    await ip('netns', 'exec', probe, ipCommand(), 'link', 'set', 'lo', 'up');
    return null;
  } catch (e) {
    return `\`ip netns\` is not usable here: ${(e as Error).message}`;
  } finally {
    await ip('netns', 'del', probe).catch(() => undefined);
  }
}

async function namespaces(): Promise<string[]> {
  const out = await ip('netns', 'list');
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name.startsWith(PREFIX));
}

async function links(): Promise<string[]> {
  const out = await ip('-o', 'link', 'show');
  return out
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(PREFIX));
}

async function pidsIn(netns: string): Promise<number[]> {
  const out = await ip('netns', 'pids', netns).catch(() => '');
  return out.split(/\s+/).filter(Boolean).map(Number);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGKILLs every process in the namespace and waits (up to 10 s) until none is left. */
export async function killAllIn(netns: string): Promise<number> {
  const first = await pidsIn(netns);
  first.forEach(kill);
  for (let i = 0; i < 100; i++) {
    const left = await pidsIn(netns);
    if (left.length === 0) break;
    left.forEach(kill);
    await delay(100);
  }
  return first.length;
}

/**
 * Removes whatever carries PREFIX: the processes in each such namespace (SIGKILL), the namespace,
 * then the bridges and veth ends left in the root namespace. Returns what it removed, for the log.
 */
export async function removeLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  for (const netns of await namespaces()) {
    const killed = await killAllIn(netns);
    await ip('netns', 'del', netns).catch(() => undefined);
    removed.push(`namespace ${netns}${killed ? ` (${killed} processes killed)` : ''}`);
  }
  for (const link of await links()) {
    await ip('link', 'del', link).catch(() => undefined);
    removed.push(`link ${link}`);
  }
  return removed;
}

/** The root-namespace end of a host's veth on a network: `ddsc-s11`, `ddsc-d21` (IFNAMSIZ is 16). */
function vethName(net: 'service' | 'data', address: string): string {
  return `${PREFIX}${net === 'service' ? 's' : 'd'}${address.split('.')[3]}`;
}

async function bridge(name: string, address: string): Promise<void> {
  await ip('link', 'add', name, 'type', 'bridge');
  await ip('addr', 'add', `${address}/24`, 'dev', name);
  await ip('link', 'set', name, 'up');
}

async function attach(host: Host, net: 'service' | 'data', address: string): Promise<void> {
  const spec = net === 'service' ? SERVICE_NET : DATA_NET;
  const outside = vethName(net, address);
  await ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', spec.ifname, 'netns', host.netns);
  await ip('link', 'set', outside, 'master', spec.bridge, 'up');
  await ip('-n', host.netns, 'addr', 'add', `${address}/24`, 'dev', spec.ifname);
  await ip('-n', host.netns, 'link', 'set', spec.ifname, 'up');
}

/** Both bridges, every host's namespace with loopback up, and its veths with their addresses. */
export async function buildNetwork(): Promise<void> {
  await bridge(SERVICE_NET.bridge, HARNESS_ADDRESS.service);
  await bridge(DATA_NET.bridge, HARNESS_ADDRESS.data);
  for (const host of HOSTS) {
    await ip('netns', 'add', host.netns);
    await ip('-n', host.netns, 'link', 'set', 'lo', 'up');
    if (host.service) await attach(host, 'service', host.service);
    if (host.data) await attach(host, 'data', host.data);
  }
}

/** A host's data link (its only path to Redis) down or up again; the other hosts see no change. */
export async function setDataLink(host: Host, up: boolean): Promise<void> {
  if (!host.data) throw new Error(`${host.name} has no data link`);
  await ip('-n', host.netns, 'link', 'set', DATA_NET.ifname, up ? 'up' : 'down');
}
