import type { RouteDeps } from './route-deps';

/**
 * What must follow a device out of the store, on device and on project delete alike: its twin
 * ends, and its broker account and role go (dropping its MQTT session). Neither failing undoes the
 * delete: a twin that did not end ends itself; a broker account that could not be removed (broker
 * unreachable) stays until it is removed again (docs/architecture.md, "Revocation").
 */
export async function retireDevices(
  { twins, broker, logger }: Pick<RouteDeps, 'twins' | 'broker' | 'logger'>,
  deviceIds: string[],
): Promise<void> {
  await Promise.all(
    deviceIds.flatMap((deviceId) => [
      twins.end(deviceId).catch((err: unknown) => logger.warn({ err, deviceId }, 'twin did not end; it ends itself')),
      broker
        .remove(deviceId)
        .catch((err: unknown) => logger.error({ err, deviceId }, 'broker account not removed; the device can still log in')),
    ]),
  );
}
