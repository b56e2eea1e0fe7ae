import type { NotificationRecord } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * The ingest pipeline's one Redis round trip: checks the device exists and (for writes toward the
 * device) that the pin is not locked; stores the latest value (unless a newer one is there) and
 * appends the point to the history stream (persisted to PostgreSQL by gateway/history/persister.ts); moves lastSeen forward for values the device
 * reported; flips the edge state of threshold rules and returns those that just crossed, writing the
 * notification each crossing raises to the outbox in the same step; and, for
 * a device the mirror does not show online, sets the short-lived wake marker (NX) so one signal
 * reaches the twin per burst. A write toward a device that is not online is kept for it (newest
 * value per pin), in the same step, for its twin to deliver when it comes online (store-point-9.lua).
 * Throws StoreError DEVICE_GONE, PIN_LOCKED, or HISTORY_BACKLOG when the history stream is full
 * (PostgreSQL down or behind: an HTTP write answers 503 naming postgres), having written nothing.
 */
const run = luaScript('store-point-9');

export interface StorePointInput {
  deviceId: string;
  pin: string;
  value: string;
  at: Date;
  /** The history stream (keys.historyStream) and how many unpersisted points it may hold. */
  historyStream: string;
  historyStreamMax: number;
  /** A write toward the device: honours pin locks, and is kept for the device when it is not online. */
  towardDevice: boolean;
  fromDevice: boolean;
  wakeTtlS: number;
  /**
   * Rules whose condition the value decides: rule id, inside the condition now, and the
   * notification written to the outbox if the value crosses into it.
   */
  ruleStates: [string, boolean, NotificationRecord | null][];
  /** The outbox stream (keys.outbox) a crossing's notification is written to. */
  outbox: string;
}

export interface StorePointResult {
  projectId: string;
  online: boolean;
  wake: boolean;
  latest: boolean;
  crossed: string[];
}

export async function storePoint(redis: Redis, input: StorePointInput): Promise<StorePointResult> {
  const ms = input.at.getTime();
  const reply = (await run(
    redis,
    [
      keys.device(input.deviceId),
      keys.devicePins(input.deviceId),
      input.historyStream,
      keys.deviceState(input.deviceId),
      keys.deviceLocks(input.deviceId),
      keys.deviceRuleState(input.deviceId),
      keys.deviceWake(input.deviceId),
      keys.devicePending(input.deviceId),
      input.outbox,
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
      ...input.ruleStates.flatMap(([id, inside, raises]) => [id, inside ? '1' : '0', raises ? JSON.stringify(raises) : '']),
    ],
  )) as (string | number)[];
  const [, projectId, status, wake, latest, ...crossed] = reply;
  return {
    projectId: String(projectId),
    online: status === 'online',
    wake: Number(wake) === 1,
    latest: Number(latest) === 1,
    crossed: crossed.map(String),
  };
}
