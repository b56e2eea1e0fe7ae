import type { NotificationRecord } from '../../common/contracts';
import type { AlarmEdgeIntent } from '../ingest/alarm-edges';
import type { IntentHandler } from './relay';

export interface IntentHandlers {
  /** Hands a notification to Temporal; a repeat of the same record must be one delivery. */
  notification: (record: NotificationRecord) => Promise<void>;
  /** Starts a new device's twin; starting a running twin again is a no-op (USE_EXISTING). */
  twinStart: (deviceId: string, projectId: string) => Promise<void>;
  /** Tells a device's twin of an alarm edge; the twin drops a repeated edge (its id). */
  alarmEdge: (intent: AlarmEdgeIntent) => Promise<void>;
}

/** The relay's handler: each intent type to its own handler. */
export function carryOutIntents(handlers: IntentHandlers): IntentHandler {
  return async (intent) => {
    switch (intent.type) {
      case 'notification':
        await handlers.notification(intent.payload);
        return;
      case 'twin-start':
        await handlers.twinStart(intent.payload.deviceId, intent.payload.projectId);
        return;
      case 'alarm-edge':
        await handlers.alarmEdge(intent.payload);
        return;
    }
  };
}
