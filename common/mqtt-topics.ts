import { z } from 'zod';

const uuid = z.uuid();

/** A device → service topic (DESIGN §6), or null for anything else. */
export type DeviceTopic =
  | { kind: 'pin'; deviceId: string; pin: string }
  | { kind: 'status'; deviceId: string }
  | { kind: 'info'; deviceId: string };

export function parseDeviceTopic(topic: string, root: string): DeviceTopic | null {
  const parts = topic.split('/');
  if (parts[0] !== root || !parts[1] || !uuid.safeParse(parts[1]).success) return null;
  const deviceId = parts[1];
  if (parts.length === 4 && parts[2] === 'pin' && parts[3]) return { kind: 'pin', deviceId, pin: parts[3] };
  if (parts.length === 3 && parts[2] === 'status') return { kind: 'status', deviceId };
  if (parts.length === 3 && parts[2] === 'info') return { kind: 'info', deviceId };
  return null;
}

/** The shared-subscription filters every gateway node subscribes with, so each message is handled once. */
export function deviceTopicFilters(root: string, group: string): string[] {
  return [`$share/${group}/${root}/+/pin/+`, `$share/${group}/${root}/+/status`, `$share/${group}/${root}/+/info`];
}

export function commandTopic(root: string, deviceId: string, pin: string): string {
  return `${root}/${deviceId}/pin/${pin}/set`;
}
