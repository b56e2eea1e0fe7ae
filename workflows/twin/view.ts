import { isoOf } from '../../common/iso-time';
import type { TwinView } from '../../common/twin-contracts';
import { alarmDueAt } from './alarms';
import { heartbeatOf } from './liveness';
import type { TwinState } from './state';
import type { RunConfig } from './version';

/** The `state` query's answer: the state as the rest of the service sees it. */
export function viewOf(s: TwinState, cfg: RunConfig): TwinView {
  return {
    deviceId: cfg.deviceId,
    projectId: cfg.projectId,
    // The device's own or its template's, else the default: the timeout it goes offline by.
    heartbeatTimeoutS: heartbeatOf(s, cfg),
    status: s.status,
    lastSeen: s.lastSeen,
    statusChangedAt: s.statusChangedAt,
    disconnectReason: s.disconnectReason,
    ipAddress: s.ipAddress,
    firmwareVersion: s.firmwareVersion,
    hardwareType: s.hardwareType,
    locks: Object.values(s.locks),
    pinActivity: { ...s.pinActivity },
    rules: s.rules,
    noData: Object.entries(s.noData).map(([ruleId, t]) => ({
      ruleId,
      pin: t.pin,
      durationS: t.durationS,
      fired: t.silenceSince !== null,
      checkAt: isoOf(t.checkAt),
    })),
    alarms: Object.entries(s.alarms).map(([ruleId, t]) => {
      const at = alarmDueAt(t);
      return { ruleId, phase: t.phase, nextAt: at === null ? null : isoOf(at) };
    }),
    stats: { ...s.stats },
    ending: s.ending !== null,
  };
}
