import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { boundRecords, createBoundRecord, deleteBoundRecord, isBound, recordStream } from './lua/device-bound-record';
import { luaScript } from './lua/load';
import { intentArgs } from './outbox';
import { saddWithin } from './quota-ledger';
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

/**
 * A dashboard widget bound to a pin of a device of its project, or of a template of its project
 * (DESIGN §12: the template's dashboard, shown for any of its devices): a V pin by its number
 * (0–255, SPEC §2.3), a D or A pin by its name (`D0`). Exactly one of deviceId and templateId is set.
 */
export interface Widget {
  id: string;
  type: WidgetType;
  projectId: string;
  deviceId: string | null;
  templateId: string | null;
  pin: number | string;
  layout: WidgetLayout;
  config: { [key: string]: JsonValue };
  createdAt: string;
  updatedAt: string;
}

/** A widget bound to a device (the only kind that may hold a pin lock). */
export type DeviceWidget = Widget & { deviceId: string };

/** A stored widget; records written before templates existed are device widgets. */
function parse(json: string): Widget {
  return { templateId: null, ...(JSON.parse(json) as Omit<Widget, 'templateId'>) };
}

/** The index that binds a widget: its template's, else its device's. */
function indexOf(widget: Widget): string {
  return widget.templateId ? keys.templateWidgets(widget.templateId) : keys.deviceWidgets(widget.deviceId ?? '');
}

function boundKeys(widget: Widget, outbox: string) {
  return {
    outbox,
    device: widget.templateId ? keys.template(widget.templateId) : keys.device(widget.deviceId ?? ''),
    record: keys.widget(widget.id),
    projectIndex: keys.projectWidgets(widget.projectId),
    deviceIndex: indexOf(widget),
  };
}

/** A template widget's binding step: its template's index, only while the template exists (store/templates.ts). */
const CLAIM = luaScript('claim-template-2');
const PUT = luaScript('put-record-2');

/** `outbox`: the outbox stream (keys.outbox); widget changes write no intent to it. */
export function createWidgetStore(redis: Redis, outbox: string) {
  return {
    /**
     * Stores a new widget within the project's widgets `quota` (QuotaExceededError); false when its
     * device is gone or not in its project, or its template is gone (the caller checked its project).
     */
    async create(widget: Widget, quota: Quota): Promise<boolean> {
      if (!widget.templateId) return (await createBoundRecord(redis, boundKeys(widget, outbox), widget, quota)).done;
      // The same three steps as a device widget's, bound by its template's index.
      const k = boundKeys(widget, outbox);
      await saddWithin(redis, k.projectIndex, widget.id, quota);
      if ((await CLAIM(redis, [k.device, k.deviceIndex], [widget.id])) !== 1) {
        await redis.srem(k.projectIndex, widget.id);
        return false;
      }
      await PUT(redis, [k.record, recordStream(outbox, widget.id)], [JSON.stringify(widget), ...intentArgs(null)]);
      return true;
    },

    async get(widgetId: string): Promise<Widget | null> {
      const json = await redis.get(keys.widget(widgetId));
      if (json === null) return null;
      const widget = parse(json);
      return (await isBound(redis, indexOf(widget), widget.id)) ? widget : null;
    },

    /** The widgets of a project, oldest first. */
    async list(projectId: string): Promise<Widget[]> {
      const ids = await redis.smembers(keys.projectWidgets(projectId));
      return boundRecords(redis, ids, keys.widget, indexOf, parse);
    },

    /** The widgets of a template's dashboard, oldest first. */
    async listOfTemplate(templateId: string): Promise<Widget[]> {
      const ids = await redis.smembers(keys.templateWidgets(templateId));
      return boundRecords(redis, ids, keys.widget, indexOf, parse);
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
