import { z } from 'zod';

/** z.uuid()'s own pattern, tested directly: a topic is checked per message, and a parse costs more than the test. */
const UUID = z.regexes.uuid();

/** A device → service topic (DESIGN §6), or null for anything else. */
export type DeviceTopic =
  | { kind: 'pin'; deviceId: string; pin: string }
  | { kind: 'status'; deviceId: string }
  | { kind: 'info'; deviceId: string }
  /** docs/commands.md: the device acknowledges a command by publishing its id here. */
  | { kind: 'ack'; deviceId: string }
  /** docs/jobs.md: the device reports how a firmware update goes. */
  | { kind: 'ota-status'; deviceId: string };

export function parseDeviceTopic(topic: string, root: string): DeviceTopic | null {
  const parts = topic.split('/');
  if (parts[0] !== root || !parts[1] || !UUID.test(parts[1])) return null;
  const deviceId = parts[1];
  if (parts.length === 4 && parts[2] === 'pin' && parts[3]) return { kind: 'pin', deviceId, pin: parts[3] };
  if (parts.length === 3 && parts[2] === 'status') return { kind: 'status', deviceId };
  if (parts.length === 3 && parts[2] === 'info') return { kind: 'info', deviceId };
  if (parts.length === 3 && parts[2] === 'ack') return { kind: 'ack', deviceId };
  if (parts.length === 4 && parts[2] === 'ota' && parts[3] === 'status') return { kind: 'ota-status', deviceId };
  return null;
}

/** The shared-subscription filters every gateway node subscribes with, so each message is handled once. */
export function deviceTopicFilters(root: string, group: string): string[] {
  return [
    `$share/${group}/${root}/+/pin/+`,
    `$share/${group}/${root}/+/status`,
    `$share/${group}/${root}/+/info`,
    `$share/${group}/${root}/+/ack`,
    `$share/${group}/${root}/+/ota/status`,
  ];
}

/** Where the service offers a device a firmware update (QoS 1, JSON; docs/jobs.md). */
export function otaTopic(root: string, deviceId: string): string {
  return `${root}/${deviceId}/ota`;
}

export function commandTopic(root: string, deviceId: string, pin: string): string {
  return `${root}/${deviceId}/pin/${pin}/set`;
}

/**
 * The MQTT 5 user property a device puts on its Last Will (`{root}/{id}/status`, payload `offline`)
 * so the service records the disconnect as `last will` rather than `status message` (docs/alarms.md).
 */
export const LAST_WILL_PROPERTY = { name: 'dds-reason', value: 'last-will' } as const;

/** Whether a status message's user properties mark it as the device's Last Will. */
export function isLastWill(userProperties: Record<string, string | string[]> | undefined): boolean {
  const value = userProperties?.[LAST_WILL_PROPERTY.name];
  return Array.isArray(value) ? value.includes(LAST_WILL_PROPERTY.value) : value === LAST_WILL_PROPERTY.value;
}
