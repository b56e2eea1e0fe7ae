import type { Redis } from '../common/redis';
import { deviceEventRoute } from '../common/device-event-route';
import { keys, streamOf } from '../common/redis-keys';
import { COMMAND_KEEP_S, COMMANDS_PER_DEVICE, type StoredCommand } from './commands';
import { luaScript } from './lua/load';

/**
 * The ingest pipeline's one Redis round trip: checks the device exists and (for writes toward the
 * device) that the pin is not locked; stores the latest value (unless a newer one is there) and
 * appends the point to the history stream (persisted to PostgreSQL by gateway/history/persister.ts);
 * moves lastSeen forward for values the device reported; flips the edge state of threshold rules
 * (with hysteresis) and returns those that just crossed into their condition, writing the intents
 * of each raise and clear edge (notification, alarm edge) to the outbox in the same step; and, for
 * a device the mirror does not show online, sets the short-lived wake marker (NX) so one signal
 * reaches the twin per burst. A write toward a device that is not online is kept for it (newest
 * value per pin), in the same step, for its twin to deliver when it comes online; and a write's
 * command record is made, queued, in the same step (store-point-13.lua). The value's `pin:update`
 * and the write's `command` event are published in that step too (docs/realtime.md), so a value
 * stored is a value shown, even if the node stops right after.
 * Throws StoreError DEVICE_GONE, PIN_LOCKED, or HISTORY_BACKLOG when the history stream is full
 * (PostgreSQL down or behind: an HTTP write answers 503 naming postgres), having written nothing.
 */
const run = luaScript('store-point-13');

export interface StorePointInput {
  deviceId: string;
  pin: string;
  value: string;
  at: Date;
  /** The history stream family (keys.historyStream; the device's shard's is written) and how many unpersisted points each shard's may hold. */
  historyStream: string;
  historyStreamMax: number;
  /** A write toward the device: honours pin locks, and is kept for the device when it is not online. */
  towardDevice: boolean;
  fromDevice: boolean;
  /** A device's own values a second by its owner's plan (DESIGN §11) and the burst it may send at once; absent or null: no limit. */
  deviceRate?: { perSecond: number; burst: number } | null;
  /** The least time between two notifications of one threshold rule for the device (ms; DESIGN §11: a minute); absent: none. */
  notifyIntervalMs?: number;
  wakeTtlS: number;
  /** Threshold rules the value decides (their edge state, and what an edge writes to the outbox). */
  ruleStates: RuleEdge[];
  /** The outbox family (keys.outbox): an edge's intents go to the device's shard's stream. */
  outbox: string;
  /**
   * The command an app's write is (docs/commands.md), queued: recorded with the value (its project
   * filled in by the step), and kept with it when the device is not online. Its id must be in the
   * device's shard (common/shard-ids.ts).
   */
  command?: Omit<StoredCommand, 'projectId'>;
  /** A device value the MQTT bridge took: stored once whatever retries or redeliveries follow (store-point-13.lua). */
  delivery?: Delivery;
}

/**
 * One MQTT delivery of a device value (gateway/mqtt/delivery.ts): `id` is the delivery's own (its
 * retries keep it), `packetKey` digests the broker session, packet id and content (a redelivery
 * after a node died has it again), each 12 hex digits; `redelivered` is the packet's DUP flag.
 */
export interface Delivery {
  id: string;
  packetKey: string;
  redelivered: boolean;
}

/** An outbox intent as the script writes it: its type and its payload. */
export type EdgeIntent = [type: string, payload: unknown];

/** The intents a rule's raise and its clear write. */
export interface EdgeIntents {
  onRaise: EdgeIntent[];
  onClear: EdgeIntent[];
}

/**
 * One threshold rule for one value: '1' inside its condition, '0' out past its clear threshold,
 * '=' in the clear band between (the edge state stays); `intents` makes what its edges write, asked
 * only when the step finds that this value flips the edge (most values flip none).
 */
export interface RuleEdge {
  ruleId: string;
  state: '1' | '0' | '=';
  intents: () => EdgeIntents;
}

const intentsArg = (intents: EdgeIntent[]): string =>
  intents.length === 0 ? '' : JSON.stringify(intents.map(([type, payload]) => [type, JSON.stringify(payload)]));

/** Sends of one value after which every rule goes with its intents (each send before that found another edge flipped). */
const INTENT_ROUNDS = 3;

/**
 * The rules' ARGV quadruples: rules in `withIntents` (every one, when null) carry their intents;
 * the others '?' (not sent), which the script checks before it writes anything.
 */
function ruleArgs(rules: RuleEdge[], withIntents: ReadonlySet<string> | null): string[] {
  return rules.flatMap((r) => {
    if (r.state === '=') return [r.ruleId, r.state, '', ''];
    if (withIntents !== null && !withIntents.has(r.ruleId)) return [r.ruleId, r.state, '?', '?'];
    const { onRaise, onClear } = r.intents();
    return [r.ruleId, r.state, intentsArg(onRaise), intentsArg(onClear)];
  });
}

export interface StorePointResult {
  projectId: string;
  /** The delivery was stored already: nothing was written, and every other field says nothing happened. */
  duplicate: boolean;
  online: boolean;
  wake: boolean;
  latest: boolean;
  /** The kept command this write replaced, if any. */
  superseded: string | null;
  /** The command this device value acknowledged (it echoed the value sent), if any. */
  acknowledged: string | null;
  /** The write's command as recorded; null for no command. */
  command: StoredCommand | null;
  crossed: string[];
}

export async function storePoint(redis: Redis, input: StorePointInput): Promise<StorePointResult> {
  const withIntents = new Set<string>();
  for (let round = 1; ; round += 1) {
    const reply = await storeOnce(redis, input, round < INTENT_ROUNDS ? withIntents : null);
    if (reply[0] !== 'intents') return resultOf(reply);
    for (const ruleId of reply.slice(1)) withIntents.add(String(ruleId));
  }
}

/** One run of the script: its reply as it came. */
async function storeOnce(redis: Redis, input: StorePointInput, withIntents: ReadonlySet<string> | null): Promise<(string | number)[]> {
  const ms = input.at.getTime();
  return (await run(
    redis,
    [
      keys.device(input.deviceId),
      keys.devicePins(input.deviceId),
      streamOf(input.historyStream, input.deviceId),
      keys.deviceState(input.deviceId),
      keys.deviceLocks(input.deviceId),
      keys.deviceRuleState(input.deviceId),
      keys.deviceWake(input.deviceId),
      keys.devicePending(input.deviceId),
      streamOf(input.outbox, input.deviceId),
      keys.historyExtra(streamOf(input.historyStream, input.deviceId)),
      input.command ? keys.command(input.command.id) : keys.deviceCommands(input.deviceId),
      keys.deviceCommands(input.deviceId),
      keys.fleetIndex(input.deviceId),
    ],
    [
      input.pin,
      input.value,
      ms,
      input.at.toISOString(),
      input.historyStreamMax,
      input.towardDevice ? '1' : '0',
      input.fromDevice ? '1' : '0',
      input.wakeTtlS,
      input.deviceId,
      new Date().toISOString(),
      input.command ? JSON.stringify(input.command) : '',
      COMMAND_KEEP_S,
      COMMANDS_PER_DEVICE,
      ...deviceEventRoute,
      input.deviceRate ? `${input.deviceRate.perSecond},${input.deviceRate.burst}` : '',
      input.notifyIntervalMs ?? 0,
      input.delivery ? `${input.delivery.id},${input.delivery.packetKey},${input.delivery.redelivered ? '1' : '0'}` : '',
      ...ruleArgs(input.ruleStates, withIntents),
    ],
  )) as (string | number)[];
}

function resultOf(reply: (string | number)[]): StorePointResult {
  if (reply[0] === 'dup') {
    // A duplicate names the command its value acknowledges, still to be moved (store-point-13.lua).
    const [, projectId, acknowledged] = reply;
    return {
      projectId: String(projectId),
      duplicate: true,
      online: false,
      wake: false,
      latest: false,
      superseded: null,
      acknowledged: acknowledged ? String(acknowledged) : null,
      command: null,
      crossed: [],
    };
  }
  const [, projectId, status, wake, latest, superseded, acknowledged, record, ...crossed] = reply;
  return {
    projectId: String(projectId),
    duplicate: false,
    online: status === 'online',
    wake: Number(wake) === 1,
    latest: Number(latest) === 1,
    superseded: superseded ? String(superseded) : null,
    acknowledged: acknowledged ? String(acknowledged) : null,
    command: record ? (JSON.parse(String(record)) as StoredCommand) : null,
    crossed: crossed.map(String),
  };
}
