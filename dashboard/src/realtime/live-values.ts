import { useSyncExternalStore } from 'react';
import type { DeviceStatus } from '../api/types';

/**
 * Latest pin values and device statuses the page shows, keyed so that an update re-renders only
 * the widgets bound to that pin (a 50-widget dashboard at 10 updates/s each stays cheap).
 */
type Listener = () => void;

export interface LiveValue {
  value: string;
  at: string;
}

export interface LiveStatus {
  status: DeviceStatus;
  lastSeen: string | null;
}

class KeyedStore<T> {
  private values = new Map<string, T>();
  private listeners = new Map<string, Set<Listener>>();

  get(key: string): T | undefined {
    return this.values.get(key);
  }

  set(key: string, value: T): void {
    this.values.set(key, value);
    this.listeners.get(key)?.forEach((l) => l());
  }

  subscribe(key: string, listener: Listener): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }
}

/** `pin` is a pin's canonical name (`V0`, `D3`, `A15`), as events and snapshots carry it. */
export const pinKey = (deviceId: string, pin: string): string => `${deviceId}:${pin.toUpperCase()}`;

export const pinValues = new KeyedStore<LiveValue>();
/** Every value a pin took while the page was open, for the charts (the newest 200). */
export const pinSeries = new KeyedStore<LiveValue[]>();
export const deviceStatuses = new KeyedStore<LiveStatus>();
/** The names of the pins of each device that had a value while the page was open. */
export const devicePins = new KeyedStore<readonly string[]>();

export function recordPinValue(deviceId: string, pin: string, value: LiveValue): void {
  const key = pinKey(deviceId, pin);
  const known = devicePins.get(deviceId) ?? [];
  if (!known.includes(pin.toUpperCase())) devicePins.set(deviceId, [...known, pin.toUpperCase()]);
  const current = pinValues.get(key);
  if (current && current.at > value.at) return;
  pinValues.set(key, value);
  const series = pinSeries.get(key) ?? [];
  if (inSeries(series, value)) return; // seeded from history before this latest value came back
  pinSeries.set(key, [...series.slice(-199), value]);
}

/** Whether the (time-ordered) series already holds the point at `value.at`: only its newer tail is looked at. */
function inSeries(series: LiveValue[], value: LiveValue): boolean {
  for (let i = series.length - 1; i >= 0; i -= 1) {
    const point = series[i] as LiveValue;
    if (point.at < value.at) return false;
    if (point.at === value.at) return true;
  }
  return false;
}

/** Merges stored points (e.g. the last hour) under what arrived live, oldest first, keeping 200. */
export function seedPinSeries(deviceId: string, pin: string, points: LiveValue[]): void {
  const key = pinKey(deviceId, pin);
  const byTime = new Map<string, LiveValue>();
  for (const p of [...points, ...(pinSeries.get(key) ?? [])]) byTime.set(p.at, p);
  pinSeries.set(key, [...byTime.values()].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).slice(-200));
}

export function usePinValue(deviceId: string, pin: string): LiveValue | undefined {
  const key = pinKey(deviceId, pin);
  return useSyncExternalStore(
    (l) => pinValues.subscribe(key, l),
    () => pinValues.get(key),
  );
}

export function usePinSeries(deviceId: string, pin: string): LiveValue[] | undefined {
  const key = pinKey(deviceId, pin);
  return useSyncExternalStore(
    (l) => pinSeries.subscribe(key, l),
    () => pinSeries.get(key),
  );
}

export function useDevicePins(deviceId: string): readonly string[] | undefined {
  return useSyncExternalStore(
    (l) => devicePins.subscribe(deviceId, l),
    () => devicePins.get(deviceId),
  );
}

export function useDeviceStatus(deviceId: string): LiveStatus | undefined {
  return useSyncExternalStore(
    (l) => deviceStatuses.subscribe(deviceId, l),
    () => deviceStatuses.get(deviceId),
  );
}
