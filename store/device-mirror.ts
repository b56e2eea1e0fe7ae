import type { DisconnectReason } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/** The twin's status write to the mirror, a no-op once the device is gone (write-status-3.lua). */
const WRITE_STATUS = luaScript('write-status-3');

export interface StatusWrite {
  deviceId: string;
  status: 'online' | 'offline';
  statusChangedAt: string;
  lastSeen: string | null;
  disconnectReason?: DisconnectReason | null;
}

/**
 * Writes status, statusChangedAt, lastSeen (which only moves forward) and the disconnect reason
 * (kept while offline); going offline clears the wake marker. Returns the lastSeen now stored, or `written: false` when the device is gone.
 */
export async function writeStatus(redis: Redis, req: StatusWrite): Promise<{ written: boolean; lastSeen: string | null; seq: number }> {
  const [written, seen, seq] = (await WRITE_STATUS(
    redis,
    [keys.device(req.deviceId), keys.deviceState(req.deviceId), keys.deviceWake(req.deviceId)],
    [req.status, req.statusChangedAt, req.lastSeen ?? '', req.status === 'offline' ? (req.disconnectReason ?? '') : ''],
  )) as [number, string, number];
  return written === 1 ? { written: true, lastSeen: seen || null, seq: Number(seq) } : { written: false, lastSeen: null, seq: 0 };
}
