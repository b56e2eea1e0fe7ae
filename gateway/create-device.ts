import { AppError, serviceUnavailable } from '../common/errors';
import { newDevice, type DeviceWithState } from '../store/devices';
import type { RouteDeps } from './route-deps';

/**
 * Creates a device so that neither a failure nor a project delete racing it leaves a broker
 * account that logs in behind a device nobody can see (docs/architecture.md "Device create"):
 * 1. The broker takes the device's account (its id, its new `dt_` token). It comes first, so any
 *    removal of the account (a device-retire intent) is written after it exists. The broker
 *    failing: a device-retire intent, left to the relay, takes back whatever it kept; 503 mqtt,
 *    nothing created.
 * 2. Redis writes the device; its last step adds it to its project in one atomic step with the
 *    check that the project is there. A project gone by then (deleted meanwhile) refuses it with a
 *    device-retire intent carried out now: 404 PROJECT_NOT_FOUND. A project deleted after it
 *    retires the device with the rest of the project. Redis failing: the account is removed at
 *    once (its token was never shown), and the error answers 503 redis.
 */
export async function createDevice(
  { stores, broker, carryOutNow, logger }: Pick<RouteDeps, 'stores' | 'broker' | 'carryOutNow' | 'logger'>,
  projectId: string,
  input: { name: string; description: string; tags: string[] },
): Promise<{ device: DeviceWithState; token: string }> {
  const fresh = newDevice(projectId, input);
  const deviceId = fresh.device.id;
  try {
    await broker.provision(deviceId, fresh.token);
  } catch (err) {
    logger.error({ err, deviceId }, 'broker provisioning failed; nothing created');
    // Left to the relay: the broker has just failed.
    await stores.devices
      .retireAccount(deviceId)
      .catch((retireErr: unknown) => logger.warn({ err: retireErr, deviceId }, 'what the broker kept of a failed provisioning is left; its token was never shown'));
    throw serviceUnavailable('mqtt', 'The MQTT broker did not take the device credentials; nothing was created');
  }
  const outcome = await stores.devices.create(fresh).catch(async (err: unknown) => {
    await broker.remove(deviceId).catch((removeErr: unknown) => logger.warn({ err: removeErr, deviceId }, 'broker account of a failed create left; its token was never shown'));
    throw err;
  });
  if (!outcome.created) {
    await carryOutNow(outcome.retire);
    throw new AppError('PROJECT_NOT_FOUND');
  }
  return { device: outcome.device, token: fresh.token };
}
