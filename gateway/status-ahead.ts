/**
 * Reconnect storms (docs/architecture.md, "Reconnect storms"): a device coming online is shown
 * online by the gateway at once, ahead of its twin, which stays the source of truth and confirms
 * or corrects the mirror one round trip later.
 *
 * The order makes the bound: the twin's signal first, and only once Temporal has accepted it
 * (durably: the twin will take it) the mirror's `online` (write-status-ahead-2.lua: not over a
 * later change) and its `device:status`. A signal Temporal does not take writes nothing ahead.
 */
import { rooms } from '../common/contracts';
import type { Logger } from '../common/logger';
import type { Redis } from '../common/redis';
import type { EmitToRooms } from '../activities/socket-events';
import { writeStatusAhead } from '../store/device-mirror';

export interface StatusAheadDeps {
  redis: Redis;
  emit: EmitToRooms;
  logger: Logger;
}

export function createStatusAhead({ redis, emit, logger }: StatusAheadDeps) {
  /** Writes `online` ahead once `signal` (the twin's, marked `ahead`) was accepted, and emits `device:status`. */
  async function online(deviceId: string, projectId: string, at: string, signal: () => Promise<void>): Promise<void> {
    await signal();
    const ahead = await writeStatusAhead(redis, deviceId, at, 'ahead');
    if (!ahead.written) return;
    await emit([rooms.project(projectId), rooms.device(deviceId)], 'device:status', {
      deviceId,
      status: 'online',
      lastSeen: ahead.lastSeen,
      reason: null,
      seq: ahead.seq,
    }).catch((err: unknown) => logger.warn({ err, deviceId }, 'device:status not fanned out; the mirror shows online'));
  }

  return {
    online,
    /**
     * A device's `online` status message: activity only (lastSeen) when the mirror shows it online
     * already (a repeated or retained `online` costs Temporal nothing), else the twin's signal and
     * the write ahead.
     */
    async statusOnline(deviceId: string, projectId: string, at: string, signal: () => Promise<void>): Promise<void> {
      const touched = await writeStatusAhead(redis, deviceId, at, 'touch');
      if (touched.status === 'online') return;
      await online(deviceId, projectId, at, signal);
    },
  };
}

export type StatusAhead = ReturnType<typeof createStatusAhead>;
