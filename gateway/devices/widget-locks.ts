import { AppError, isAppError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { parsePin } from '../../common/pins';
import type { Redis } from '../../common/redis';
import { streamOf } from '../../common/redis-keys';
import type { WrittenIntent } from '../../common/outbox-intents';
import { appendIntent } from '../../store/outbox';
import type { DeviceWidget, Widget, WidgetStore } from '../../store/widgets';
import { settleEntry } from '../outbox/carry-out-now';
import type { TwinClient } from '../temporal/twin-client';

/** How long after a lock change began its `widget-lock` intent comes due: longer than any request that changes a lock (each twin call ends within 2 s). */
const FOLLOW_AFTER_MS = 5_000;

/** A device's KEYPAD widget with `config.locked` true holds the lock of its pin (DESIGN §5); a template's holds none. */
export function holdsLock(widget: Widget): widget is DeviceWidget {
  return widget.type === 'KEYPAD' && widget.config.locked === true && widget.deviceId !== null;
}

/** Whether a widget may hold a lock: a device's KEYPAD (its changes are guarded). */
export function mayLock(widget: Widget): widget is DeviceWidget {
  return widget.type === 'KEYPAD' && widget.deviceId !== null;
}

function pinName(widget: Pick<Widget, 'pin'>): string {
  const pin = parsePin(widget.pin);
  if (!pin) throw new AppError('INVALID_PIN', `Not a pin: ${widget.pin}`);
  return pin.name;
}

export interface WidgetLocksDeps {
  twins: Pick<TwinClient, 'lock' | 'unlock'>;
  widgets: Pick<WidgetStore, 'get'>;
  redis: Redis;
  /** The outbox family the `widget-lock` intents go to (keys.outbox). */
  outbox: string;
  logger: Logger;
}

/**
 * The pin locks KEYPAD widgets hold (DESIGN §5), kept in step with the stored widgets when a
 * request fails half-way (docs/architecture.md "Nothing half-written"). A request that may take
 * or drop a widget's lock first writes a `widget-lock` intent (`guard`); when it ends it removes
 * it (`done`). An intent left behind (the widget not written, the node gone) comes due later and
 * makes the twin's lock follow the widget as stored then (`follow`), through the outbox, so it
 * survives a restart and waits out a Temporal outage.
 */
export function createWidgetLocks({ twins, widgets, redis, outbox, logger }: WidgetLocksDeps) {
  return {
    lock: (w: DeviceWidget) => twins.lock(w.deviceId, w.projectId, pinName(w), w.id),
    release: (w: DeviceWidget) => twins.unlock(w.deviceId, w.projectId, pinName(w), w.id),

    /** Writes the intent that puts `w`'s lock right should the change under way not finish (Redis down: it throws, nothing changed). */
    guard(w: DeviceWidget): Promise<WrittenIntent> {
      const dueAt = new Date(Date.now() + FOLLOW_AFTER_MS).toISOString();
      return appendIntent(redis, streamOf(outbox, w.deviceId), {
        type: 'widget-lock',
        payload: { widgetId: w.id, deviceId: w.deviceId, projectId: w.projectId, pin: pinName(w), dueAt },
      });
    },

    /** The change guarded by `written` finished: its intent is no longer needed (left, it would only confirm the lock). */
    done(written: WrittenIntent): void {
      settleEntry(redis, written.stream, written.entryId).catch((err: unknown) =>
        logger.debug({ err, entryId: written.entryId }, 'widget-lock intent left; it confirms the lock when due'),
      );
    },

    /**
     * The `widget-lock` intent: the lock of the widget's pin as the stored widget says, held while
     * the widget exists with `config.locked`, released by the widget's id otherwise (never another
     * holder's lock). Both are idempotent; a twin that refuses (its device gone) holds nothing.
     */
    async follow(intent: { widgetId: string; deviceId: string; projectId: string; pin: string }): Promise<void> {
      const { widgetId, deviceId, projectId, pin } = intent;
      const widget = await widgets.get(widgetId);
      const change =
        widget && holdsLock(widget) ? twins.lock(deviceId, projectId, pin, widgetId) : twins.unlock(deviceId, projectId, pin, widgetId);
      await change.catch((err: unknown) => {
        if (!isAppError(err)) throw err;
      });
    },
  };
}

export type WidgetLocks = ReturnType<typeof createWidgetLocks>;
