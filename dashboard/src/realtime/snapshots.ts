import { useEffect, useState } from 'react';
import type { Ack, DeviceSnapshotEvent } from '../../../common/contracts';
import { deviceStatuses, recordPinValue } from './live-values';
import { useSocket, type DdsSocket } from './socket';

/**
 * Asks the server for a device's latest state over Socket.IO `resync` (docs/realtime.md): its
 * status and every pin with a value, V, D and A alike, in one answer. A pin never written is simply
 * absent, so nothing is fetched per pin and no request fails for a pin without data.
 */
export async function resyncDevice(socket: DdsSocket, deviceId: string): Promise<DeviceSnapshotEvent | null> {
  const ack: Ack<{ devices: DeviceSnapshotEvent[] }> | null = await socket
    .timeout(5000)
    .emitWithAck('resync', { deviceId })
    .catch(() => null);
  const snapshot = ack?.success ? ack.devices.find((d) => d.deviceId === deviceId) : undefined;
  if (!snapshot) return null;
  for (const [pin, latest] of Object.entries(snapshot.pins)) recordPinValue(deviceId, pin, { value: latest.value, at: latest.updatedAt });
  deviceStatuses.set(deviceId, { status: snapshot.status, lastSeen: snapshot.lastSeen });
  return snapshot;
}

/** The latest state of each device, asked once connected and again after every reconnect (`epoch`). */
export function useDeviceSnapshots(deviceIds: readonly string[]): Map<string, DeviceSnapshotEvent> {
  const { socket, epoch } = useSocket();
  const [snapshots, setSnapshots] = useState(new Map<string, DeviceSnapshotEvent>());
  const key = [...new Set(deviceIds)].sort().join(',');
  useEffect(() => {
    if (epoch === 0 || !key) return;
    let live = true;
    void Promise.all(key.split(',').map((id) => resyncDevice(socket, id))).then((all) => {
      if (live) setSnapshots(new Map(all.flatMap((s) => (s ? [[s.deviceId, s] as const] : []))));
    });
    return () => {
      live = false;
    };
  }, [socket, key, epoch]);
  return snapshots;
}
