import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { boundRecords, createBoundRecord, deleteBoundRecord, isBound } from './lua/device-bound-record';
import { replaceIfUnchanged, type Replacement } from './lua/replace-if-unchanged';

/** Widget types (SPEC §2.3), exact values. */
export const WIDGET_TYPES = [
  'BUTTON',
  'SWITCH',
  'SLIDER',
  'GAUGE',
  'ANALOG_GAUGE',
  'GRAPH',
  'VALUE_DISPLAY',
  'LCD',
  'TERMINAL',
  'LED',
  'JOYSTICK',
  'MAP',
  'PROGRESS_BAR',
  'COLOR_PICKER',
  'STEP_CONTROL',
  'BRIDGE',
  'IMAGE',
  'TABLE',
  'BAR_CHART',
  'ALERT',
  'NUMBER_INPUT',
  'TIMER',
  'SEGMENTED_CONTROL',
  'SIGNAL_STRENGTH',
  'TEXT_INPUT',
  'SPARKLINE',
  'ICON_STATUS',
  'KEYPAD',
  'LOCATION',
] as const;

export type WidgetType = (typeof WIDGET_TYPES)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface WidgetLayout {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A dashboard widget bound to a pin of a device of its project: a V pin by its number (0–255, SPEC §2.3), a D or A pin by its name (`D0`). */
export interface Widget {
  id: string;
  type: WidgetType;
  projectId: string;
  deviceId: string;
  pin: number | string;
  layout: WidgetLayout;
  config: { [key: string]: JsonValue };
  createdAt: string;
  updatedAt: string;
}

function parse(json: string): Widget {
  return JSON.parse(json) as Widget;
}

function boundKeys(widget: Widget, outbox: string) {
  return {
    outbox,
    device: keys.device(widget.deviceId),
    record: keys.widget(widget.id),
    projectIndex: keys.projectWidgets(widget.projectId),
    deviceIndex: keys.deviceWidgets(widget.deviceId),
  };
}

/** `outbox`: the outbox stream (keys.outbox); widget changes write no intent to it. */
export function createWidgetStore(redis: Redis, outbox: string) {
  return {
    /** Stores a new widget within the project's widgets `quota` (QuotaExceededError); false when its device is gone or not in its project. */
    async create(widget: Widget, quota: Quota): Promise<boolean> {
      return (await createBoundRecord(redis, boundKeys(widget, outbox), widget, quota)).done;
    },

    async get(widgetId: string): Promise<Widget | null> {
      const json = await redis.get(keys.widget(widgetId));
      if (json === null) return null;
      const widget = parse(json);
      return (await isBound(redis, keys.deviceWidgets(widget.deviceId), widget.id)) ? widget : null;
    },

    /** The widgets of a project, oldest first. */
    async list(projectId: string): Promise<Widget[]> {
      const ids = await redis.smembers(keys.projectWidgets(projectId));
      return boundRecords(redis, ids, keys.widget, keys.deviceWidgets, parse);
    },

    /**
     * Replaces a widget with `change(current)`, atomically against concurrent changes: when the
     * stored widget moved on meanwhile, `change` runs again on the newer one.
     */
    update(widgetId: string, change: (current: Widget) => Promise<Widget>): Promise<Replacement<Widget>> {
      return replaceIfUnchanged(redis, keys.widget(widgetId), parse, change);
    },

    async delete(widget: Widget): Promise<boolean> {
      return (await deleteBoundRecord(redis, boundKeys(widget, outbox), widget.id)).done;
    },
  };
}

export type WidgetStore = ReturnType<typeof createWidgetStore>;
