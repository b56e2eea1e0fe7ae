import type { RouteDeps } from './route-deps';

/**
 * What must follow a device out of the store, on device and on project delete alike: its twin
 * ends, its broker account and role go (dropping its MQTT session), and its history in PostgreSQL
 * goes (history a failure leaves is unreachable: device ids are never reused). None failing
 * undoes the delete: a twin that did not end ends itself; a broker account that could not be removed (broker
 * unreachable) stays until it is removed again (docs/architecture.md, "Revocation").
 */
export async function retireDevices(
  { twins, broker, logger, stores }: Pick<RouteDeps, 'twins' | 'broker' | 'logger' | 'stores'>,
  deviceIds: string[],
): Promise<void> {
  await Promise.all([
    stores.pinSeries.forgetDevices(deviceIds).catch((err: unknown) => logger.error({ err, deviceIds }, 'device history not deleted')),
    ...deviceIds.flatMap((deviceId) => [
      twins.end(deviceId).catch((err: unknown) => logger.warn({ err, deviceId }, 'twin did not end; it ends itself')),
      broker
        .remove(deviceId)
        .catch((err: unknown) => logger.error({ err, deviceId }, 'broker account not removed; the device can still log in')),
    ]),
  ]);
}
