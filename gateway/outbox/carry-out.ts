import type { NotificationRecord } from '../../common/contracts';
import type { z } from 'zod';
import { AppError } from '../../common/errors';
import { type FleetRuleChange, twinInfoPayload, twinStatusPayload } from '../../common/outbox-intents';
import type { HeldTwinMessages } from '../../store/twin-messages';
import type { PinSeriesStore } from '../../store/pin-series';
import type { BrokerCredentials } from '../mqtt/broker-credentials';
import type { TokenRotation } from '../devices/rotate-device-token';
import type { TwinClient } from '../temporal/twin-client';
import type { WidgetLocks } from '../devices/widget-locks';
import { IntentNotDue, requireDue, type IntentHandler } from './carry-out-now';

export interface IntentHandlers {
  /** Hands a notification to Temporal; a repeat of the same record must be one delivery. */
  notification: (record: NotificationRecord) => Promise<void>;
  twins: Pick<TwinClient, 'start' | 'rulesChanged' | 'end' | 'alarmEdge' | 'activity' | 'status' | 'info'>;
  broker: Pick<BrokerCredentials, 'remove'>;
  /** Pin history in PostgreSQL: a deleted device's points and rollups go. */
  history: Pick<PinSeriesStore, 'forgetDevices'>;
  /** A device's staged `dt_` token rolled forward (gateway/devices/rotate-device-token.ts). */
  tokens: Pick<TokenRotation, 'rollForward'>;
  /** A KEYPAD widget's pin lock put in step with the stored widget (gateway/devices/widget-locks.ts). */
  widgetLocks: Pick<WidgetLocks, 'follow'>;
  /** Device messages merged in a window, for `twin-held` (store/twin-messages.ts). */
  held: HeldTwinMessages;
  /** A scoped rule's fleet catch-up (store/fleet-catch-up.ts). */
  fleet: (projectId: string, change: FleetRuleChange) => Promise<unknown>;
}

/** A twin that answers DEVICE_NOT_FOUND is ending (its device is gone): there is nothing left to tell it. */
function unlessEnding(err: unknown): void {
  if (!(err instanceof AppError && err.code === 'DEVICE_NOT_FOUND')) throw err;
}

/**
 * The handler of every outbox intent (the relay's and a request's own attempt alike). Each is
 * idempotent, since an intent may be carried out more than once:
 * - twin-start: starting a running twin is a no-op (USE_EXISTING);
 * - rules-changed: each twin reloads its rules; a twin whose device is gone ends itself; a fleet
 *   change's catch-up forgets edge state and writes its chunks of twins again (reloads change nothing);
 * - alarm-edge: the twin drops an edge it already has (by the edge's id);
 * - twin-online: activity the twin already has changes nothing (the mirror was written ahead);
 * - twin-held: tells what is merged now (a status at or before the twin's own change changes
 *   nothing, info fields it holds already are no change), once per device and kind at a time;
 * - device-token, widget-lock (compensations, due some seconds after they were written): each
 *   acts on the state it reads then (a token still staged, the widget as stored);
 * - device-retire: the twin ends (a missing one is fine), the broker account and role go (a
 *   missing one is fine) and the device's history in PostgreSQL goes (none left is fine); all
 *   three must succeed, or the intent is retried.
 */
export function carryOutIntents({ notification, twins, broker, history, tokens, widgetLocks, held, fleet }: IntentHandlers): IntentHandler {
  const tellStatus = ({ deviceId, projectId, status, at, reason }: z.infer<typeof twinStatusPayload>) =>
    twins.status(deviceId, projectId, status, at, reason).catch(unlessEnding);
  const tellInfo = ({ deviceId, projectId, info, at }: z.infer<typeof twinInfoPayload>) =>
    twins.info(deviceId, projectId, { ...info, at }).catch(unlessEnding);
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
        if (intent.payload.fleet) await fleet(projectId, intent.payload.fleet);
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
      case 'twin-held': {
        const { deviceId, kind, dueMs } = intent.payload;
        requireDue(dueMs);
        // Told what is held now. Merged into meanwhile: the intent stays, and a later try (the
        // relay's backoff, seconds on) tells the newer one, so a flood costs one signal a try.
        const read = await held.read(deviceId, kind);
        if (read !== null) {
          const json: unknown = JSON.parse(read);
          if (kind === 'status') await tellStatus(twinStatusPayload.parse(json));
          else await tellInfo(twinInfoPayload.parse(json));
        }
        if (!(await held.settle(deviceId, kind, read))) throw new IntentNotDue(new Date(Date.now() + 1000).toISOString());
        return;
      }
      case 'device-token':
        requireDue(intent.payload.dueAt);
        await tokens.rollForward(intent.payload.deviceId, intent.payload.sealedToken);
        return;
      case 'widget-lock':
        requireDue(intent.payload.dueAt);
        await widgetLocks.follow(intent.payload);
        return;
      case 'alarm-edge':
        await twins.alarmEdge(intent.payload.deviceId, intent.payload.projectId, intent.payload.edge);
        return;
    }
  };
}
