import { z } from 'zod';
import type { AlarmEdgeInput } from './twin-contracts';
import { ALARM_SEVERITIES, type NotificationRecord } from './contracts';
import { INFO_FIELD_MAX_LENGTH } from './device-info';

/** The consumer group every gateway node's relay reads the outbox in. */
export const OUTBOX_GROUP = 'relay';

/**
 * What an outbox entry asks for. Entries are written by store scripts in the same step as the
 * state change they belong to, as the fields `type` and `payload` (JSON); see docs/architecture.md "Outbox".
 */
const notificationRecord = z.object({
  id: z.string().min(1),
  projectId: z.string().min(1),
  deviceId: z.string().nullable(),
  ruleId: z.string().nullable(),
  type: z.enum(['threshold', 'device_status', 'no_data', 'device']),
  title: z.string(),
  message: z.string(),
  priority: z.enum(['low', 'normal', 'high']),
  channels: z.array(z.enum(['inApp', 'push', 'email'])),
  read: z.boolean(),
  createdAt: z.string(),
}) satisfies z.ZodType<NotificationRecord>;

/** What the outbox carries to a device's twin for one alarm edge (`alarm-edge`). */
export interface AlarmEdgeIntent {
  deviceId: string;
  projectId: string;
  edge: AlarmEdgeInput;
}

const channel = z.enum(['inApp', 'push', 'email']);
/** A threshold rule's alarm flipped (gateway/ingest/alarm-edges.ts): its twin is told. */
const alarmEdge = z.object({
  deviceId: z.string().min(1),
  projectId: z.string().min(1),
  edge: z.object({
    edgeId: z.string().min(1),
    edge: z.enum(['raise', 'clear']),
    ruleId: z.string().min(1),
    pin: z.string(),
    value: z.string(),
    at: z.string(),
    severity: z.enum(ALARM_SEVERITIES),
    forSeconds: z.number().min(0),
    renotifySeconds: z.number().positive().nullable(),
    escalate: z.object({ afterSeconds: z.number().positive(), channels: z.array(channel) }).nullable(),
    channels: z.array(channel),
    title: z.string(),
    message: z.string(),
    notified: z.boolean(),
  }),
}) satisfies z.ZodType<AlarmEdgeIntent>;

/** The gateway showed a device online ahead of its twin (gateway/temporal/status-ahead.ts): the twin takes it as activity and confirms. */
const twinOnline = z.object({
  deviceId: z.string().min(1),
  projectId: z.string().min(1),
  at: z.string().min(1),
  pin: z.string().optional(),
});

/** A device's status message or Last Will (gateway/mqtt/bridge.ts): its twin is told. */
export const twinStatusPayload = z.object({
  deviceId: z.string().min(1),
  projectId: z.string().min(1),
  status: z.enum(['online', 'offline']),
  at: z.string().min(1),
  reason: z.enum(['status message', 'last will']).optional(),
});

const infoField = z.string().max(INFO_FIELD_MAX_LENGTH).optional();
/** A device's `info` message (gateway/mqtt/bridge.ts): its twin keeps the fields and counts it as activity. */
export const twinInfoPayload = z.object({
  deviceId: z.string().min(1),
  projectId: z.string().min(1),
  info: z.object({ firmwareVersion: infoField, ipAddress: infoField, hardwareType: infoField }),
  at: z.string().min(1),
});

/**
 * A device's new `dt_` token, written with its staging (gateway/devices/rotate-device-token.ts), sealed
 * with CREDENTIAL_KEY: due at `dueAt`, when the request that staged it has surely ended, it gives
 * the broker the token and commits it, if it is still the staged one.
 */
const deviceToken = z.object({ deviceId: z.string().min(1), sealedToken: z.string().min(1), dueAt: z.string().min(1) });

/**
 * Written before a KEYPAD widget's lock may change (gateway/routes/widgets.ts): due at `dueAt`, it
 * makes the twin's lock of the pin follow the stored widget (locked while it exists with
 * `config.locked`, released by the widget's id otherwise).
 */
const widgetLock = z.object({
  widgetId: z.string().min(1),
  deviceId: z.string().min(1),
  projectId: z.string().min(1),
  pin: z.string().min(1),
  dueAt: z.string().min(1),
});

/**
 * A device's status or info messages, merged (store/lua/lib/twin-messages.lua): one outstanding per
 * device and kind, due at `dueMs` (at once, or when the last one's window ends), it tells the twin
 * what is merged then (payloads: twinStatusPayload, twinInfoPayload).
 */
const twinHeld = z.object({
  deviceId: z.string().min(1),
  projectId: z.string().min(1),
  kind: z.enum(['status', 'info']),
  dueMs: z.number(),
});

/**
 * A rule changed (store/rules.ts): the twins of `deviceIds` reload their rules now; `fleet`, when a
 * template, tag or project rule changed, asks the fleet catch-up (gateway/outbox/fleet-catch-up.ts)
 * to arm a no_data rule's timers in every twin it covers and to forget a threshold rule's edge state.
 */
const rulesChanged = z.object({
  projectId: z.string().min(1),
  deviceIds: z.array(z.string().min(1)),
  /** `changeId` names the change, so that a repeat of its catch-up arms nothing twice (absent in entries older than it). */
  fleet: z
    .object({ ruleId: z.string().min(1), armTimers: z.boolean(), resetEdges: z.boolean(), changeId: z.string().min(1).optional() })
    .optional(),
});
export type FleetRuleChange = NonNullable<z.infer<typeof rulesChanged>['fleet']>;

const intentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('twin-held'), payload: twinHeld }),
  z.object({ type: z.literal('device-token'), payload: deviceToken }),
  z.object({ type: z.literal('widget-lock'), payload: widgetLock }),
  z.object({ type: z.literal('twin-online'), payload: twinOnline }),
  z.object({ type: z.literal('alarm-edge'), payload: alarmEdge }),
  z.object({ type: z.literal('notification'), payload: notificationRecord }),
  z.object({ type: z.literal('twin-start'), payload: z.object({ deviceId: z.string().min(1), projectId: z.string().min(1) }) }),
  z.object({ type: z.literal('rules-changed'), payload: rulesChanged }),
  z.object({ type: z.literal('device-retire'), payload: z.object({ deviceId: z.string().min(1) }) }),
]);

export type OutboxIntent = z.infer<typeof intentSchema>;

/** An intent a store step wrote, with its stream entry id, so the caller may carry it out at once (gateway/outbox/carry-out-now.ts). */
export interface WrittenIntent {
  /** The shard's outbox stream it was written to (keys.outbox, streamOf). */
  stream: string;
  entryId: string;
  intent: OutboxIntent;
}

/** The intent a stream entry's fields (`[name, value, ...]`) hold, or null when they hold none this code knows. */
export function parseIntent(fields: string[]): OutboxIntent | null {
  const named = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) named.set(fields[i] as string, fields[i + 1] as string);
  let payload: unknown;
  try {
    payload = JSON.parse(named.get('payload') ?? '');
  } catch {
    return null;
  }
  const parsed = intentSchema.safeParse({ type: named.get('type'), payload });
  return parsed.success ? parsed.data : null;
}
