/**
 * The client side of the live-view protocol (docs/realtime.md), as plain state: what a client
 * knows of each device, the last sequence number it applied, and whether it must ask for a
 * resync. No I/O: the dashboard and the tests feed it events, acks and snapshots.
 */
import type { DeviceSnapshotEvent, DeviceStatus } from './contracts';

export interface DeviceView {
  seq: number;
  status: DeviceStatus | null;
  lastSeen: string | null;
  pins: Record<string, { value: string; updatedAt: string }>;
}

export type Applied = 'applied' | 'stale' | 'gap';

export class LiveView {
  readonly devices = new Map<string, DeviceView>();

  private view(deviceId: string): DeviceView {
    let view = this.devices.get(deviceId);
    if (!view) {
      view = { seq: 0, status: null, lastSeen: null, pins: {} };
      this.devices.set(deviceId, view);
    }
    return view;
  }

  /** The subscribe ack: where each device's sequence stands now (events after it continue from there). */
  subscribed(seqs: Record<string, number>): void {
    for (const [deviceId, seq] of Object.entries(seqs)) {
      const view = this.view(deviceId);
      if (seq > view.seq) view.seq = seq;
    }
  }

  /**
   * An event of a device with its `seq`: applied when it is the next one; `stale` when already
   * covered (made before the subscribe ack, or a resync got it first: dropped); `gap` when events
   * were missed (it is applied, and the caller must resync the device). An event without a seq is
   * applied as is.
   */
  event(deviceId: string, seq: number | undefined, apply: (view: DeviceView) => void): Applied {
    const view = this.view(deviceId);
    if (seq === undefined) {
      apply(view);
      return 'applied';
    }
    if (seq <= view.seq) return 'stale';
    const gap = view.seq > 0 && seq > view.seq + 1;
    apply(view);
    view.seq = seq;
    return gap ? 'gap' : 'applied';
  }

  /** A resync's snapshot replaces what the client had, unless the client is already further along. */
  snapshot(s: DeviceSnapshotEvent): void {
    const view = this.view(s.deviceId);
    if (s.seq < view.seq) {
      // Events newer than the snapshot were applied meanwhile: keep them, take only what they lack.
      for (const [pin, latest] of Object.entries(s.pins)) if (!view.pins[pin]) view.pins[pin] = latest;
      return;
    }
    this.devices.set(s.deviceId, { seq: s.seq, status: s.status, lastSeen: s.lastSeen, pins: { ...s.pins } });
  }
}
