/** Pin names, ranges and value size limits (SPEC §2.7, §8): the one implementation every path calls. */
export type PinType = 'V' | 'D' | 'A';

export interface Pin {
  type: PinType;
  index: number;
  /** Canonical name, e.g. `V5`. */
  name: string;
}

export const PIN_VALUE_LIMIT_BYTES: Record<PinType, number> = { V: 1024, D: 16, A: 16 };

const STANDARD_MAX: Record<PinType, number> = { V: 255, D: 99, A: 15 };
/** The simple interface accepts D and A pins up to 255 (SPEC §8). */
const WIDE_MAX: Record<PinType, number> = { V: 255, D: 255, A: 255 };

const PIN_PATTERN = /^([VDAvda])?(\d{1,3})$/;

/**
 * Parses a pin name (`V5`, `d3`, `A0`) or a bare number (`5` = `V5`).
 * Returns null when the name is malformed or out of range.
 */
export function parsePin(input: string | number, ranges: 'standard' | 'wide' = 'standard'): Pin | null {
  const match = PIN_PATTERN.exec(String(input).trim());
  if (!match) return null;
  const type = (match[1] ?? 'V').toUpperCase() as PinType;
  const index = Number(match[2]);
  const max = (ranges === 'wide' ? WIDE_MAX : STANDARD_MAX)[type];
  if (index > max) return null;
  return { type, index, name: `${type}${index}` };
}

export function valueByteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** True when the UTF-8 value fits the byte limit of its pin type. */
export function valueFits(pin: Pin, value: string): boolean {
  return valueByteLength(value) <= PIN_VALUE_LIMIT_BYTES[pin.type];
}
