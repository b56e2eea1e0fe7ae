import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * A bulk import of past readings in one Redis step (import-points-3.lua): every reading goes to
 * the history stream, and each pin's latest value moves to its newest reading unless a newer
 * value is there. Throws StoreError DEVICE_GONE, or HISTORY_BACKLOG when the readings do not fit
 * in the history stream, having written nothing.
 */
const run = luaScript('import-points-3');

export interface ImportReading {
  /** Canonical pin name (V1, D3, ...). */
  pin: string;
  value: string;
  at: Date;
}

export interface ImportResult {
  projectId: string;
  /** The latest values the import moved. */
  moved: { pin: string; value: string; updatedAt: string; seq: number }[];
}

export async function importPoints(
  redis: Redis,
  input: { deviceId: string; readings: readonly ImportReading[]; historyStream: string; historyStreamMax: number },
): Promise<ImportResult> {
  const reply = (await run(
    redis,
    [keys.device(input.deviceId), keys.devicePins(input.deviceId), streamOf(input.historyStream, input.deviceId)],
    [input.historyStreamMax, input.deviceId, ...input.readings.flatMap((r) => [r.pin, r.value, r.at.getTime(), r.at.toISOString()])],
  )) as (string | number)[];
  const [projectId, ...flat] = reply;
  const moved: ImportResult['moved'] = [];
  for (let i = 0; i + 3 < flat.length; i += 4) {
    moved.push({ pin: String(flat[i]), value: String(flat[i + 1]), updatedAt: String(flat[i + 2]), seq: Number(flat[i + 3]) });
  }
  return { projectId: String(projectId), moved };
}
