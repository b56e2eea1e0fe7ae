import { randomUUID } from 'node:crypto';
import { withDeadline } from '../../common/deadline';
import { idInShardOf } from '../../common/shard-ids';
import { SEVERITY_PRIORITY, type NotificationRecord } from '../../common/contracts';
import type { Logger } from '../../common/logger';
import type { MqttClient } from '../../common/mqtt';
import { parsePin, valueFits } from '../../common/pins';
import type { StatusAhead } from '../temporal/status-ahead';
import { commandTopic } from '../../common/mqtt-topics';
import { StoreError, type StoreErrorCode } from '../../store/errors';
import type { Delivery, ImportReading, IngestStore, NewCommand, StorePointResult } from '../../store/ingest-store';
import { DEFAULT_SEVERITY, ruleEdgeOf } from './alarm-edges';
import { thresholdTitle } from './threshold';
import type { ThresholdRule, ThresholdRuleCache } from './threshold-rules';

/**
 * Where a value came from: the device itself; an app or API writing toward the device (locks
 * apply, the device gets it); or an import of a past reading (stored and fanned out only).
 */
export type IngestOrigin = 'device' | 'app' | 'import';

export interface IngestInput {
  deviceId: string;
  pin: string | number;
  value: string;
  origin: IngestOrigin;
  /** When the value was measured; defaults to now. */
  at?: Date;
  /** The simple interface accepts D and A pins up to 255 (SPEC §8). */
  pinRanges?: 'standard' | 'wide';
  /** An app's write: a command still queued this long after it was made is never sent (docs/commands.md). */
  ttlSeconds?: number;
  /** A device's own value: the values a second its owner's plan allows (DESIGN §11); beyond it, refused. */
  devicePerSecond?: number | null;
  /** The MQTT delivery the value came in (gateway/mqtt/delivery.ts): stored once, whatever retries and redeliveries follow. */
  delivery?: Delivery;
}

export type IngestRejection = 'INVALID_PIN' | 'VALUE_TOO_LARGE' | 'PIN_LOCKED' | 'DEVICE_NOT_FOUND' | 'RATE_LIMIT_EXCEEDED';

export type IngestResult =
  | {
      ok: true;
      projectId: string;
      pin: string;
      value: string;
      updatedAt: string;
      delivered: boolean;
      commandId: string | null;
      /** Its delivery was stored already, by an earlier try or delivery of it (IngestInput.delivery): nothing was written now. */
      duplicate?: true;
    }
  | { ok: false; code: IngestRejection };

/**
 * The store's refusals that answer the value, as ingest results. Any other store error (a full
 * history stream: HISTORY_BACKLOG) is a failure and is thrown on to the caller's error path.
 */
const REFUSALS: Partial<Record<StoreErrorCode, IngestRejection>> = {
  DEVICE_GONE: 'DEVICE_NOT_FOUND',
  PIN_LOCKED: 'PIN_LOCKED',
  DEVICE_RATE: 'RATE_LIMIT_EXCEEDED',
};

/** What a store error thrown by a step means as an ingest result; undefined when it is a failure to throw on. */
const refusalOf = (err: unknown): IngestRejection | undefined => (err instanceof StoreError ? REFUSALS[err.code] : undefined);

export interface IngestDeps {
  /** Where values, imports and commands are stored (store/ingest-store.ts). */
  store: IngestStore;
  mqtt: MqttClient;
  /** A value from a device the mirror shows offline shows it online ahead of its twin, and tells the twin (gateway/temporal/status-ahead.ts). */
  statusAhead: StatusAhead;
  rules: ThresholdRuleCache;
  logger: Logger;
  topicRoot: string;
  /** How many seconds' worth of values a device may send at once within its rate (DEVICE_VALUES_BURST_S). */
  deviceBurstS: number;
  /** The least time between two notifications of one threshold rule for one device (THRESHOLD_NOTIFY_INTERVAL_S). */
  notifyIntervalMs: number;
}

/**
 * How long one wake signal to the twin covers the messages of a device the mirror does not show
 * online yet (a busy Temporal may take a while to mark it). The twin clears the marker when the
 * device goes offline, so a later message wakes it at once.
 */
const WAKE_TTL_S = 30;

/** How long an app's write to an online device waits for the broker to take it before it is kept instead. */
const PUBLISH_DEADLINE_MS = 1_000;

/**
 * The command an app's write is (docs/commands.md): queued, its id in the device's shard (so the
 * store step writes it with the value), expiring `ttlSeconds` after it was made if still queued.
 */
function commandOf(input: IngestInput, pin: string): NewCommand {
  const now = new Date();
  return {
    id: idInShardOf(input.deviceId),
    deviceId: input.deviceId,
    pin,
    value: input.value,
    state: 'queued',
    createdAt: now.toISOString(),
    createdMs: now.getTime(),
    sentAt: null,
    acknowledgedAt: null,
    expiresAt: input.ttlSeconds ? new Date(now.getTime() + input.ttlSeconds * 1000).toISOString() : null,
  };
}

/**
 * The notification a threshold rule raises when a value of `deviceId` crosses into its condition (a
 * scoped rule's names the device whose value it was). Made before
 * the store step, which writes it to the outbox only if the value does cross (its id makes the
 * relay's repeated hand-offs one delivery).
 */
function notificationOf(rule: ThresholdRule, deviceId: string, value: string, at: string): NotificationRecord {
  const severity = rule.severity ?? DEFAULT_SEVERITY;
  return {
    id: randomUUID(),
    projectId: rule.projectId,
    deviceId,
    ruleId: rule.id,
    type: 'threshold',
    title: thresholdTitle(severity, `V${rule.pin}`, rule.condition, rule.threshold),
    message: rule.message.replaceAll('{value}', value),
    priority: SEVERITY_PRIORITY[severity],
    channels: rule.channels,
    read: false,
    createdAt: at,
  };
}

/**
 * The one ingest pipeline (SPEC §1 rule 2, §6): every value, whatever door it came in by, is
 * checked, stored, fanned out, checked against threshold rules (a crossing's notification goes out through the outbox)
 * and, from apps, delivered.
 * Callers map the typed result to their own answer.
 */
export function createIngest(deps: IngestDeps) {
  const { store, mqtt, rules, logger } = deps;
  /** Work the pipeline started and does not wait for (a command's move to sent, showing a device online ahead of its twin). */
  const background = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>): void => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };
  /**
   * Publishes a write to an online device (QoS 1) and answers whether the broker took it. With
   * the broker out of reach (not connected, or no PUBACK within PUBLISH_DEADLINE_MS) the write is
   * kept (newest per pin) and the device scheduled for the resender, which sends it as soon as the
   * broker and the device are back (gateway/mqtt/command-resender.ts); the store-point step already
   * kept what was meant for a device that is not online, for its twin.
   */
  async function deliver(deviceId: string, pin: string, value: string, at: Date, online: boolean, command: NewCommand): Promise<boolean> {
    if (!online) return false;
    try {
      if (!mqtt.connected) throw new Error('not connected to the broker');
      await withDeadline(mqtt.publishAsync(commandTopic(deps.topicRoot, deviceId, pin), value, { qos: 1 }), PUBLISH_DEADLINE_MS);
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err), deviceId, pin }, 'publish to device failed; kept for its twin');
      await store.keepUnsent(deviceId, pin, value, at, command);
      return false;
    }
    // Sent: a receipt Redis cannot move now stays `queued`, and the answer still says delivered,
    // so the answer does not wait for the move. The move goes out before the answer, on the
    // connection that took the record (so a read after the answer on this node finds it sent).
    track(
      store
        .moveCommand(deviceId, command.id, 'sent')
        .catch((err: unknown) => logger.warn({ err, deviceId, pin, commandId: command.id }, 'command receipt not marked sent')),
    );
    return true;
  }

  /**
   * Commands (docs/commands.md) the store step found: the kept one the write superseded, the one a
   * device value acknowledged. A device's value usually touches none, and then costs nothing here.
   */
  async function moveCommands(deviceId: string, stored: StorePointResult, at: Date): Promise<void> {
    if (stored.superseded) await store.moveCommand(deviceId, stored.superseded, 'superseded');
    if (stored.acknowledged) await store.moveCommand(deviceId, stored.acknowledged, 'acknowledged', at.toISOString());
  }

  async function ingest(input: IngestInput): Promise<IngestResult> {
    const pin = parsePin(input.pin, input.pinRanges);
    if (!pin) return { ok: false, code: 'INVALID_PIN' };
    if (!valueFits(pin, input.value)) return { ok: false, code: 'VALUE_TOO_LARGE' };

    // An import is a past reading: it is history, not an event, so it neither fires a threshold
    // rule nor moves a rule's edge state (the next live value is judged against the live one before).
    const thresholdRules = pin.type === 'V' && input.origin !== 'import' ? await rules.forPin(input.deviceId, pin.index) : [];
    const at = input.at ?? new Date();
    const command = input.origin === 'app' ? commandOf(input, pin.name) : null;
    // Alarms (docs/alarms.md): each rule's edge state with hysteresis, and the intents its edges write.
    const ruleStates = thresholdRules.flatMap(
      (rule) => ruleEdgeOf(rule, input.deviceId, input.value, at.toISOString(), notificationOf) ?? [],
    );

    let stored: StorePointResult;
    try {
      stored = await store.storePoint({
        deviceId: input.deviceId,
        pin: pin.name,
        value: input.value,
        at,
        towardDevice: input.origin === 'app',
        fromDevice: input.origin === 'device',
        deviceRate: input.devicePerSecond ? { perSecond: input.devicePerSecond, burst: input.devicePerSecond * deps.deviceBurstS } : null,
        notifyIntervalMs: deps.notifyIntervalMs,
        wakeTtlS: WAKE_TTL_S,
        ruleStates,
        ...(command ? { command } : {}),
        ...(input.delivery ? { delivery: input.delivery } : {}),
      });
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal) return { ok: false, code: refusal };
      throw err;
    }

    // The value's pin:update and the write's `command` event went out with the store step.
    const updatedAt = at.toISOString();
    const answer = { ok: true as const, projectId: stored.projectId, pin: pin.name, value: input.value, updatedAt };
    if (stored.duplicate) {
      // Stored by an earlier try of this delivery, with its effects, but for the move of a command it
      // acknowledged: that try's reply (and so its move) may have been lost.
      if (stored.acknowledged) {
        await moveCommands(input.deviceId, stored, at).catch((err: unknown) =>
          logger.warn({ err, deviceId: input.deviceId, pin: pin.name }, 'command receipt not moved; the value is stored'),
        );
      }
      return { ...answer, delivered: false, commandId: null, duplicate: true };
    }
    if (stored.wake) {
      // Shown online ahead of the twin, its signal in the outbox (gateway/temporal/status-ahead.ts): no Temporal call per value.
      track(
        deps.statusAhead
          .online(input.deviceId, updatedAt, pin.name)
          .catch((err: unknown) => logger.warn({ err, deviceId: input.deviceId }, 'device not shown online ahead of its twin')),
      );
    }
    if (!command && !stored.superseded && !stored.acknowledged) return { ...answer, delivered: false, commandId: null };
    // The value and its command are stored: a superseded or acknowledged command Redis cannot move
    // now is logged and keeps its state, and the write still answers as stored. The moves are made
    // while the broker takes the publish: both are round trips, neither needs the other.
    const moving = moveCommands(input.deviceId, stored, at).catch((err: unknown) =>
      logger.warn({ err, deviceId: input.deviceId, pin: pin.name }, 'command receipt not moved; the value is stored'),
    );
    const delivered = command ? await deliver(input.deviceId, pin.name, input.value, at, stored.online, command) : false;
    await moving;
    return { ...answer, delivered, commandId: stored.command?.id ?? null };
  }

  /**
   * A bulk import of past readings (POST /data/{id}/bulk with timestamps): the same checks per
   * reading, then one store step for all that pass (history stream + latest values, and one
   * pin:update per pin whose latest value moved). Imports fire no threshold rule and are not sent to
   * the device, as for one import through `ingest`. Results in the order of the readings.
   */
  async function importReadings(
    deviceId: string,
    readings: readonly { pin: string | number; value: string; at: Date }[],
  ): Promise<{ ok: true; results: IngestResult[] } | { ok: false; code: 'DEVICE_NOT_FOUND' }> {
    const checked = readings.map((r): ImportReading | 'INVALID_PIN' | 'VALUE_TOO_LARGE' => {
      const pin = parsePin(r.pin);
      if (!pin) return 'INVALID_PIN';
      return valueFits(pin, r.value) ? { pin: pin.name, value: r.value, ms: r.at.getTime() } : 'VALUE_TOO_LARGE';
    });
    const valid = checked.flatMap((c) => (typeof c === 'string' ? [] : [c]));
    let stored: { projectId: string };
    try {
      stored = await store.importPoints(deviceId, valid);
    } catch (err) {
      if (refusalOf(err) === 'DEVICE_NOT_FOUND') return { ok: false, code: 'DEVICE_NOT_FOUND' };
      throw err;
    }
    const results = checked.map(
      (c): IngestResult =>
        typeof c === 'string'
          ? { ok: false, code: c }
          : {
              ok: true,
              projectId: stored.projectId,
              pin: c.pin,
              value: c.value,
              updatedAt: new Date(c.ms).toISOString(),
              delivered: false,
              commandId: null,
            },
    );
    return { ok: true, results };
  }

  /** Resolves once the work ingest started in the background has finished (for a graceful stop). */
  const drain = async (): Promise<void> => {
    await Promise.allSettled([...background]);
  };

  /** A device acknowledged a command by its id on `{root}/{deviceId}/ack` (docs/commands.md); false when it names none of this device's. */
  const acknowledge = async (deviceId: string, commandId: string): Promise<boolean> =>
    (await store.moveCommand(deviceId, commandId, 'acknowledged')) !== null;

  return Object.assign(ingest, { drain, importReadings, acknowledge });
}

export type Ingest = ReturnType<typeof createIngest>;
