import type { DeviceWithState } from '../../store/devices';

/** The external REST view of a device (SPEC §2.5); unknown values are null. */
export function externalDeviceView(d: DeviceWithState) {
  return {
    id: d.id,
    name: d.name,
    description: d.description === '' ? null : d.description,
    hardwareType: d.state.hardwareType,
    isOnline: d.state.status === 'online',
    lastSeenAt: d.state.lastSeen,
    createdAt: d.createdAt,
  };
}

/** The external REST view of a device's status (SPEC §2.6). */
export function externalStatusView(d: DeviceWithState) {
  return {
    deviceId: d.id,
    isOnline: d.state.status === 'online',
    lastSeenAt: d.state.lastSeen,
    hardwareType: d.state.hardwareType,
    firmwareVersion: d.state.firmwareVersion,
    ipAddress: d.state.ipAddress,
  };
}

/** The simple interface's view of a device's status (SPEC §2.6, §4.7 /is-online). */
export function simpleStatusView(d: DeviceWithState) {
  return {
    deviceId: d.id,
    isOnline: d.state.status === 'online',
    lastSeenAt: d.state.lastSeen,
    statusChangedAt: d.state.statusChangedAt,
  };
}
