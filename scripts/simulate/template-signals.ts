import type { DATA_TYPES } from '../../common/widget-config';
import type { Reading } from './signals';

/** What the simulator needs of a template pin (DESIGN §12). */
export interface SignalPin {
  pin: string;
  dataType: (typeof DATA_TYPES)[number];
  min: number | null;
  max: number | null;
}

/** The range a pin's values stay in: its min and max, else 0–100 (or 100 wide from the one given). */
export function rangeOf(pin: Pick<SignalPin, 'min' | 'max'>): [number, number] {
  const lo = pin.min ?? (pin.max !== null ? pin.max - 100 : 0);
  const hi = pin.max ?? lo + 100;
  return [lo, hi];
}

/**
 * The values a device of a template reports: each of the template's pins in turn, each its own
 * kind by data type and inside its range: a slow sine for FLOAT (INTEGER rounded), a contact that
 * flips now and then for BOOLEAN, a counter for STRING and a small object for JSON. Each device
 * gets its own phase, so their charts differ.
 */
export function templateSignals(pins: readonly SignalPin[], seed: number, random: () => number = Math.random) {
  if (pins.length === 0) throw new Error('a template with no pins has no signals');
  const phase = (seed * 0.7) % (2 * Math.PI);
  const flags = new Map<string, boolean>();
  let turn = 0;
  return (now: number): Reading => {
    const n = turn++;
    const pin = pins[n % pins.length] as SignalPin;
    const [lo, hi] = rangeOf(pin);
    const wave = (1 + Math.sin((2 * Math.PI * now) / 120_000 + phase + n * 0.01)) / 2; // 0..1
    const number = lo + (hi - lo) * (0.05 + 0.9 * wave);
    switch (pin.dataType) {
      case 'FLOAT':
        return { pin: pin.pin, value: number.toFixed(2) };
      case 'INTEGER':
        return { pin: pin.pin, value: String(Math.min(Math.floor(hi), Math.max(Math.ceil(lo), Math.round(number)))) };
      case 'BOOLEAN': {
        const on = flags.get(pin.pin) ?? false;
        const next = random() < 0.1 ? !on : on;
        flags.set(pin.pin, next);
        return { pin: pin.pin, value: next ? '1' : '0' };
      }
      case 'STRING':
        return { pin: pin.pin, value: `sim ${seed} #${Math.floor(n / pins.length)}` };
      case 'JSON':
        return { pin: pin.pin, value: JSON.stringify({ value: Number(number.toFixed(2)), seq: Math.floor(n / pins.length) }) };
    }
  };
}
