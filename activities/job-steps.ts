import type { Command, CommandState } from '../common/contracts';
import {
  type CountedState,
  FINAL_DEVICE_STATES,
  type JobCounts,
  type JobDevice,
  type JobDeviceState,
  type OtaReport,
  zeroCounts,
} from '../common/jobs';
import { compareSemVer, parseSemVer } from '../common/semver';

/**
 * How a job's device moves (docs/jobs.md, "Device states"): pure functions of its entry and what
 * was read about it, so each rule is tested without servers.
 */

const moved = (entry: JobDevice, state: JobDeviceState, now: number, error: string | null = null): JobDevice =>
  entry.state === state && entry.error === error ? entry : { ...entry, state, error, updatedAt: new Date(now).toISOString() };

/** A command receipt's state as the job counts it: a superseded command failed (a newer write replaced it). */
const BY_RECEIPT: Record<CommandState, JobDeviceState> = {
  queued: 'queued',
  sent: 'sent',
  acknowledged: 'acknowledged',
  expired: 'expired',
  superseded: 'failed',
};

/** A command job's device after a look at its receipt (as of now: commandView); a receipt gone fails it. */
export function commandStep(entry: JobDevice, command: Command | null, now: number): JobDevice {
  if (!command) return moved(entry, 'failed', now, 'command record gone');
  const state = BY_RECEIPT[command.state];
  return moved(entry, state, now, command.state === 'superseded' ? 'superseded by a newer write to the pin' : null);
}

function sameVersion(reported: string | null, wanted: string): boolean {
  if (reported === null) return false;
  const [a, b] = [parseSemVer(reported), parseSemVer(wanted)];
  return a && b ? compareSemVer(a, b) === 0 : reported === wanted;
}

/**
 * An OTA job's device (DESIGN §13): succeeded once it reported `done` and its `info` shows the
 * image's version; failed when it reported `failed`; expired when the job's TTL passed since the
 * job sent to it (or, offline, queued it) without either.
 */
export function otaStep(
  entry: JobDevice,
  facts: { report: OtaReport | undefined; firmwareVersion: string | null; version: string; now: number; ttlMs: number },
): JobDevice {
  const { report, now } = facts;
  if (report?.state === 'failed') return moved(entry, 'failed', now, report.error ?? 'the device reported failed');
  if (report?.state === 'done' && sameVersion(facts.firmwareVersion, facts.version)) return moved(entry, 'succeeded', now);
  if (entry.sentMs !== null && now >= entry.sentMs + facts.ttlMs) return moved(entry, 'expired', now, 'not updated within the TTL');
  return entry;
}

/**
 * Whether the job still follows a device: sent to (or queued), not in a final state, within the
 * TTL. A command sent and never acknowledged stops being followed at the TTL and stays `sent`.
 */
export const isOpen = (entry: JobDevice, now: number, ttlMs: number): boolean =>
  entry.state !== 'pending' && !FINAL_DEVICE_STATES.has(entry.state) && (entry.sentMs === null || now < entry.sentMs + ttlMs);

export function countsOf(entries: readonly JobDevice[]): JobCounts {
  const counts = zeroCounts();
  for (const e of entries) if (e.state !== 'pending') counts[e.state as CountedState] += 1;
  return counts;
}
