/**
 * A twin's life: how it starts (from the mirror, when fresh), and how it ends (its device deleted,
 * or its device hash missing for a grace period: the delete's `end` was lost).
 */
import { isoOf, later, msOf } from '../../common/iso-time';
import type { BootstrapResult } from '../../common/twin-activities';
import type { Decision } from './effects';
import { transition } from './liveness';
import { withRuleSet } from './rule-set';
import type { TwinState } from './state';
import type { RunConfig } from './version';

/** A device hash missing this many heartbeat timeouts (at least 5 s) ends the twin. */
const ORPHAN_GRACE_HEARTBEATS = 2;
const ORPHAN_GRACE_MIN_MS = 5_000;

const orphanGraceMs = (cfg: RunConfig): number => Math.max(ORPHAN_GRACE_HEARTBEATS * cfg.heartbeatTimeoutS * 1000, ORPHAN_GRACE_MIN_MS);

/**
 * A twin starting fresh takes what the mirror holds; a device without a status gets one written.
 * An `online` the gateway wrote ahead (`statusAhead`) is not the twin's yet: the twin makes it its
 * own transition (mirror confirmed, online rules, kept commands), as the signal behind it would have.
 */
export function bootstrapped(s: TwinState, boot: BootstrapResult, now: number): Decision {
  const m = boot.mirror;
  const ahead = m.status === 'online' && m.statusAhead === true;
  const status = ahead ? 'offline' : (m.status ?? 'offline');
  let lastSeen = later(s.lastSeen, m.lastSeen);
  if (status === 'online' && lastSeen === null) lastSeen = m.statusChangedAt ?? isoOf(now);
  let next: TwinState = {
    ...s,
    bootstrapped: true,
    missingSince: boot.exists ? s.missingSince : now,
    status,
    statusChangedAt: m.statusChangedAt,
    lastSeen,
    offlineSince: status === 'offline' ? msOf(m.statusChangedAt) : s.offlineSince,
    ipAddress: m.ipAddress,
    firmwareVersion: m.firmwareVersion,
    hardwareType: m.hardwareType,
    locks: Object.fromEntries(boot.locks.map((l) => [l.pin, l])),
  };
  next = withRuleSet(next, boot, now);
  if (boot.exists && ahead) return transition({ ...next, offlineSince: null }, 'online', m.statusChangedAt ?? isoOf(now));
  if (boot.exists && m.status === null) {
    return { state: { ...next, statusChangedAt: isoOf(now) }, effects: [{ kind: 'writeStatus', firstStatus: true }] };
  }
  return { state: next, effects: [] };
}

/** The device was deleted: the twin finishes what it is doing and completes. */
export function endRequested(s: TwinState): TwinState {
  return { ...s, ending: s.ending ?? 'ended' };
}

/** When a missing device hash ends the twin (epoch ms), or null while it is there. */
export function orphanDeadline(s: TwinState, cfg: RunConfig): number | null {
  return s.missingSince === null ? null : s.missingSince + orphanGraceMs(cfg);
}

/**
 * A read found the device hash there or not. Missing: the orphan clock starts, and the twin ends
 * once it has run out. There again: the clock stops. `exists` false means there is nothing more to decide.
 */
export function deviceChecked(s: TwinState, cfg: RunConfig, exists: boolean, now: number): TwinState {
  if (exists) return { ...s, missingSince: null };
  if (s.missingSince === null) return { ...s, missingSince: now };
  if (now - s.missingSince >= orphanGraceMs(cfg)) return { ...s, ending: 'device-missing' };
  return s;
}
