import { parsePin } from '../../common/pins';

/** A pin name in canonical form (`v3` → `V3`), or null when it is not a pin. */
export function canonicalPin(pin: unknown): string | null {
  return typeof pin === 'string' ? (parsePin(pin)?.name ?? null) : null;
}
