import { AppError, serviceUnavailable } from '../../common/errors';
import type { DeviceWithState, NewDevice } from '../../store/devices';
import { projectQuota } from '../access/quotas';
import { templateNotInProject } from '../access/record-access';
import type { RouteDeps } from '../routes/route-deps';

/**
 * Creates a device so that neither a failure nor a project delete racing it leaves a broker
 * account that logs in behind a device nobody can see (docs/architecture.md "Device create"):
 * 0. A template given must be one of the project's (400 otherwise); the device takes its slot of
 *    the project owner's devices quota (DESIGN §11), with the check
 *    in the same atomic step: at the limit, 403 QUOTA_EXCEEDED and nothing is created. Every later
 *    failure below gives the slot back. The device is then counted among its template's devices
 *    (refused with 400 when the template was deleted meanwhile).
 * 1. The broker takes the device's account (its id, its new `dt_` token). It comes first, so any
 *    removal of the account (a device-retire intent) is written after it exists. The broker
 *    failing: a device-retire intent, left to the relay, takes back whatever it kept; 503 mqtt,
 *    nothing created.
 * 2. Redis writes the device; its last step adds it to its project in one atomic step with the
 *    check that the project is there. A project gone by then (deleted meanwhile) refuses it with a
 *    device-retire intent carried out now: 404 PROJECT_NOT_FOUND. A project deleted after it
 *    retires the device with the rest of the project. Redis failing: the account is removed at
 *    once (its token was never shown), and the error answers 503 redis.
 * The one path of every device made: POST /devices and a device provisioning itself (provision-device.ts).
 */
export async function createDevice(
  { config, stores, broker, carryOutNow, logger }: Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'carryOutNow' | 'logger'>,
  fresh: NewDevice,
): Promise<{ device: DeviceWithState; token: string }> {
  const { id: deviceId, projectId, templateId } = fresh.device;
  if (templateId) {
    const template = await stores.templates.get(templateId);
    if (!template || template.projectId !== projectId) throw templateNotInProject();
  }
  const { ownerId, quota } = await projectQuota(config, stores, projectId, 'devices');
  await stores.devices.reserve(ownerId, fresh, quota);
  const release = async () => {
    await stores.devices
      .release(ownerId, deviceId)
      .catch((err: unknown) => logger.warn({ err, deviceId }, "a failed create's devices quota slot is left taken"));
    if (templateId) {
      await stores.templates
        .release(templateId, deviceId)
        .catch((err: unknown) => logger.warn({ err, deviceId }, "a failed create is left counted in its template's devices"));
    }
  };
  if (templateId && !(await stores.templates.claim(templateId, deviceId))) {
    await release();
    throw templateNotInProject();
  }
  try {
    await broker.provision(deviceId, fresh.token);
  } catch (err) {
    await release();
    logger.error({ err, deviceId }, 'broker provisioning failed; nothing created');
    // Left to the relay: the broker has just failed.
    await stores.devices
      .retireAccount(deviceId)
      .catch((retireErr: unknown) =>
        logger.warn({ err: retireErr, deviceId }, 'what the broker kept of a failed provisioning is left; its token was never shown'),
      );
    throw serviceUnavailable('mqtt', 'The MQTT broker did not take the device credentials; nothing was created');
  }
  const outcome = await stores.devices.create(fresh, ownerId).catch(async (err: unknown) => {
    await release();
    await broker
      .remove(deviceId)
      .catch((removeErr: unknown) =>
        logger.warn({ err: removeErr, deviceId }, 'broker account of a failed create left; its token was never shown'),
      );
    throw err;
  });
  if (!outcome.created) {
    await release();
    await carryOutNow(outcome.retire);
    throw new AppError('PROJECT_NOT_FOUND');
  }
  return { device: outcome.device, token: fresh.token };
}
