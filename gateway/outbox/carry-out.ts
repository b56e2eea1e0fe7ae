import type { NotificationRecord } from '../../common/contracts';
import { AppError } from '../../common/errors';
import type { PinSeriesStore } from '../../store/pin-series';
import type { BrokerCredentials } from '../mqtt/broker-credentials';
import type { TwinClient } from '../twin-client';
import type { IntentHandler } from './carry-out-now';

export interface IntentHandlers {
  /** Hands a notification to Temporal; a repeat of the same record must be one delivery. */
  notification: (record: NotificationRecord) => Promise<void>;
  twins: Pick<TwinClient, 'start' | 'rulesChanged' | 'end' | 'alarmEdge' | 'activity'>;
  broker: Pick<BrokerCredentials, 'remove'>;
  /** Pin history in PostgreSQL: a deleted device's points and rollups go. */
  history: Pick<PinSeriesStore, 'forgetDevices'>;
}

/** A twin that answers DEVICE_NOT_FOUND is ending (its device is gone): there is nothing left to tell it. */
function unlessEnding(err: unknown): void {
  if (!(err instanceof AppError && err.code === 'DEVICE_NOT_FOUND')) throw err;
}

/**
 * The handler of every outbox intent (the relay's and a request's own attempt alike). Each is
 * idempotent, since an intent may be carried out more than once:
 * - twin-start: starting a running twin is a no-op (USE_EXISTING);
 * - rules-changed: each twin reloads its rules; a twin whose device is gone ends itself;
 * - alarm-edge: the twin drops an edge it already has (by the edge's id);
 * - twin-online: activity the twin already has changes nothing (the mirror was written ahead);
 * - device-retire: the twin ends (a missing one is fine), the broker account and role go (a
 *   missing one is fine) and the device's history in PostgreSQL goes (none left is fine); all
 *   three must succeed, or the intent is retried.
 */
export function carryOutIntents({ notification, twins, broker, history }: IntentHandlers): IntentHandler {
  return async (intent) => {
    switch (intent.type) {
      case 'notification':
        await notification(intent.payload);
        return;
      case 'twin-start':
        await twins.start(intent.payload.deviceId, intent.payload.projectId);
        return;
      case 'rules-changed': {
        const { projectId, deviceIds } = intent.payload;
        await Promise.all(deviceIds.map((deviceId) => twins.rulesChanged(deviceId, projectId).then(() => undefined, unlessEnding)));
        return;
      }
      case 'device-retire':
        await Promise.all([
          twins.end(intent.payload.deviceId),
          broker.remove(intent.payload.deviceId),
          history.forgetDevices([intent.payload.deviceId]),
        ]);
        return;
      case 'twin-online': {
        const { deviceId, projectId, at, pin } = intent.payload;
        await twins.activity(deviceId, projectId, at, pin, { ahead: true });
        return;
      }
      case 'alarm-edge':
        await twins.alarmEdge(intent.payload.deviceId, intent.payload.projectId, intent.payload.edge);
        return;
    }
  };
}
