import type { DataType, Template, TemplateBody, TemplatePin } from '../../api/types';
import { pinName } from '../../pins/pin-types';

/** One row of the pins table as typed: numbers as text, empty when not set. */
export interface PinRow {
  /** A stable React key for the row. */
  key: number;
  pin: string;
  name: string;
  dataType: DataType;
  unit: string;
  min: string;
  max: string;
}

/** The template form as typed. */
export interface TemplateDraft {
  name: string;
  description: string;
  /** Seconds; empty: the service's default. */
  heartbeat: string;
  pins: PinRow[];
}

let nextKey = 1;
const text = (v: string | number | null): string => (v === null ? '' : String(v));

export const pinRow = (pin: Partial<TemplatePin> = {}): PinRow => ({
  key: nextKey++,
  pin: pin.pin ?? '',
  name: pin.name ?? '',
  dataType: pin.dataType ?? 'FLOAT',
  unit: text(pin.unit ?? null),
  min: text(pin.min ?? null),
  max: text(pin.max ?? null),
});

export const draftOf = (t: Template | null): TemplateDraft => ({
  name: t?.name ?? '',
  description: t?.description ?? '',
  heartbeat: text(t?.heartbeatTimeoutS ?? null),
  pins: (t?.pins ?? []).map(pinRow),
});

/** The heartbeat timeouts the API takes (DESIGN §12): 5 s to 7 days. */
export const HEARTBEAT_MIN_S = 5;
export const HEARTBEAT_MAX_S = 7 * 86_400;

/** A number field: null when empty, NaN when not a number. */
const numberOrNull = (s: string): number | null => (s.trim() === '' ? null : Number(s));

/** The body the draft sends, or the first problem in it, worded for the form. */
export function bodyOf(draft: TemplateDraft): { body: TemplateBody } | { problem: string } {
  const heartbeat = numberOrNull(draft.heartbeat);
  if (heartbeat !== null && (!Number.isInteger(heartbeat) || heartbeat < HEARTBEAT_MIN_S || heartbeat > HEARTBEAT_MAX_S)) {
    return { problem: `Heartbeat timeout: whole seconds from ${HEARTBEAT_MIN_S} to ${HEARTBEAT_MAX_S} (7 days), or empty for the default` };
  }
  const pins: TemplatePin[] = [];
  const seen = new Set<string>();
  for (const [i, row] of draft.pins.entries()) {
    const where = `Pin row ${i + 1}`;
    const pin = pinName(row.pin.trim());
    if (!pin) return { problem: `${where}: "${row.pin}" is not a pin (V0–V255, D0–D99, A0–A15)` };
    if (seen.has(pin)) return { problem: `${where}: ${pin} is listed twice` };
    seen.add(pin);
    if (!row.name.trim()) return { problem: `${where}: give ${pin} a name` };
    const min = numberOrNull(row.min);
    const max = numberOrNull(row.max);
    if (Number.isNaN(min) || Number.isNaN(max)) return { problem: `${where}: minimum and maximum are numbers` };
    if (min !== null && max !== null && min > max) return { problem: `${where}: the minimum is above the maximum` };
    pins.push({ pin, name: row.name.trim(), dataType: row.dataType, unit: row.unit.trim() || null, min, max });
  }
  return { body: { name: draft.name.trim(), description: draft.description.trim(), heartbeatTimeoutS: heartbeat, pins } };
}
