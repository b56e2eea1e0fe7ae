/**
 * The device's `info` topic (DESIGN §6): the fields that changed, within the limits of
 * common/device-info, are written to the mirror; its time, when given, is activity (liveness.ts).
 */
import { INFO_FIELDS, infoFieldValue, type DeviceInfoFields } from '../../common/device-info';
import { isTime } from '../../common/iso-time';
import type { InfoInput } from '../../common/twin-contracts';
import type { Decision, Received, TwinEffect } from './effects';
import { activityAt, heardAt } from './liveness';
import { counted, type TwinState } from './state';

export function receiveInfo(s0: TwinState, input: Partial<InfoInput> | undefined, now: number): Received {
  let s = counted(s0, 'signals', now);
  const changes: DeviceInfoFields = {};
  for (const field of INFO_FIELDS) {
    const value = infoFieldValue(input?.[field]);
    if (value !== null && value !== s[field]) {
      changes[field] = value;
      s = { ...s, [field]: value };
    }
  }
  const at = isTime(input?.at) ? input.at : null;
  if (at) s = heardAt(s, at);
  return { state: s, step: { kind: 'info', changes, at } };
}

/** An info step's turn: the changed fields are written, then its time may bring the device online. */
export function infoStep(s: TwinState, changes: DeviceInfoFields, at: string | null): Decision {
  const write: TwinEffect[] = Object.keys(changes).length > 0 ? [{ kind: 'writeInfo', changes }] : [];
  if (!at) return { state: s, effects: write };
  const decision = activityAt(s, at);
  return { state: decision.state, effects: [...write, ...decision.effects] };
}
