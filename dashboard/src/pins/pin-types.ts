import { parsePin, PIN_VALUE_LIMIT_BYTES, type PinType } from '../../../common/pins';

export type { PinType };

/** The three pin types of SPEC §2.7, in the order the pickers list them, with what they are for. */
export const PIN_TYPES: ReadonlyArray<{ type: PinType; name: string; max: number; use: string }> = [
  { type: 'V', name: 'Virtual', max: 255, use: 'application data: numbers, text, JSON' },
  { type: 'D', name: 'Digital', max: 99, use: 'GPIO state, 0 or 1' },
  { type: 'A', name: 'Analog', max: 15, use: 'ADC readings' },
];

export function pinTypeInfo(type: PinType): { type: PinType; name: string; max: number; use: string } {
  return PIN_TYPES.find((t) => t.type === type) ?? (PIN_TYPES[0] as (typeof PIN_TYPES)[number]);
}

/** One line on a pin type: its range, use and value limit, e.g. "D0–D99 · GPIO state, 0 or 1 · up to 16 bytes". */
export function pinTypeHelp(type: PinType): string {
  const info = pinTypeInfo(type);
  return `${type}0–${type}${info.max} · ${info.use} · up to ${PIN_VALUE_LIMIT_BYTES[type]} bytes`;
}

/** The canonical name (`V5`, `D0`, `A15`) of a pin given as a name or a bare number (a V pin), or null when out of range. */
export function pinName(input: string | number): string | null {
  return parsePin(input)?.name ?? null;
}

/** Sorts pin names V, then D, then A, each by number. */
export function comparePins(a: string, b: string): number {
  const order = 'VDA';
  const pa = parsePin(a);
  const pb = parsePin(b);
  if (!pa || !pb) return a.localeCompare(b);
  return order.indexOf(pa.type) - order.indexOf(pb.type) || pa.index - pb.index;
}
