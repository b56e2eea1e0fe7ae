import { AppError, serviceUnavailable } from '../../common/errors';
import { inChunks } from '../../common/in-chunks';
import type { DeviceWithState, NewDevice } from '../../store/devices';
import { projectQuota } from '../access/quotas';
import { requireProjectTemplate, templateNotInProject } from '../access/record-access';
import type { RouteDeps } from '../routes/route-deps';

type CreateDeps = Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'carryOutNow' | 'logger'>;

/** Broker calls (and intents carried out now) a create keeps in flight at a time. */
const BROKER_CHUNK = 50;

/**
 * Creates devices of one project so that neither a failure nor a project delete racing them leaves
 * a broker account that logs in behind a device nobody can see (docs/architecture.md "Device create"):
 * 0. A template given must be one of the project's (400 otherwise); the devices take their slots of
 *    the project owner's devices quota (DESIGN §11), all or none, with the check in the same atomic
 *    step: past the limit, 403 QUOTA_EXCEEDED and nothing is created. Every later failure below
 *    gives the slots back. The devices are then counted among their template's devices (refused
 *    with 400 when the template was deleted meanwhile).
 * 1. The broker takes each device's account (its id, its new `dt_` token; nothing with the device
 *    plugin). It comes first, so any removal of an account (a device-retire intent) is written after
 *    it exists. The broker failing: device-retire intents, left to the relay, take back whatever it
 *    kept; 503 mqtt, nothing created.
 * 2. Redis writes the devices; the last step adds them all to their project in one atomic step with
 *    the check that the project is there. A project gone by then (deleted meanwhile) refuses them
 *    with device-retire intents carried out now: 404 PROJECT_NOT_FOUND. A project deleted after it
 *    retires the devices with the rest of the project. Redis failing: the records are removed and
 *    the accounts too (the tokens were never shown), and the error answers 503 redis.
 * The one path of every device made: POST /devices and a device provisioning itself (one device
 * each, `createDevice`), and a bulk import (import-devices.ts, its rows at once).
 */
export async function createDevices(deps: CreateDeps, fresh: NewDevice[]): Promise<DeviceWithState[]> {
  const { config, stores, broker, carryOutNow, logger } = deps;
  const first = fresh[0];
  if (!first) return [];
  const { projectId, templateId } = first.device;
  if (fresh.some(({ device }) => device.projectId !== projectId || device.templateId !== templateId)) {
    throw new Error('devices created together share their project and template');
  }
  const deviceIds = fresh.map(({ device }) => device.id);
  const logged = deviceIds.length === 1 ? { deviceId: first.device.id } : { projectId, devices: deviceIds.length };
  if (templateId) await requireProjectTemplate(stores, projectId, templateId);
  const { ownerId, quota } = await projectQuota(config, stores, projectId, 'devices');
  await stores.devices.reserve(ownerId, fresh, quota);
  const release = async () => {
    await stores.devices
      .release(ownerId, deviceIds)
      .catch((err: unknown) => logger.warn({ err, ...logged }, "a failed create's devices quota slots are left taken"));
    if (templateId) {
      await stores.templates
        .release(templateId, ...deviceIds)
        .catch((err: unknown) => logger.warn({ err, ...logged }, "a failed create is left counted in its template's devices"));
    }
  };
  if (templateId && !(await stores.templates.claimAll(templateId, deviceIds))) {
    await release();
    throw templateNotInProject();
  }
  try {
    await inChunks(fresh, BROKER_CHUNK, ({ device, token }) => broker.provision(device.id, token));
  } catch (err) {
    await release();
    logger.error({ err, ...logged }, 'broker provisioning failed; nothing created');
    // Left to the relay: the broker has just failed.
    await stores.devices
      .retireAccounts(deviceIds)
      .catch((retireErr: unknown) =>
        logger.warn({ err: retireErr, ...logged }, 'what the broker kept of a failed provisioning is left; its tokens were never shown'),
      );
    throw serviceUnavailable('mqtt', 'The MQTT broker did not take the device credentials; nothing was created');
  }
  const outcome = await stores.devices.create(fresh, ownerId).catch(async (err: unknown) => {
    await release();
    await stores.devices
      .forget(fresh)
      .catch((forgetErr: unknown) =>
        logger.warn({ err: forgetErr, ...logged }, 'records of a failed create left; their tokens were never shown'),
      );
    await inChunks(deviceIds, BROKER_CHUNK, (deviceId) => broker.remove(deviceId)).catch((removeErr: unknown) =>
      logger.warn({ err: removeErr, ...logged }, 'broker accounts of a failed create left; their tokens were never shown'),
    );
    throw err;
  });
  if (!outcome.created) {
    await release();
    await inChunks(outcome.retires, BROKER_CHUNK, carryOutNow);
    throw new AppError('PROJECT_NOT_FOUND');
  }
  return outcome.devices;
}

/** Creates one device (POST /devices, a device provisioning itself): `createDevices` with one. */
export async function createDevice(deps: CreateDeps, fresh: NewDevice): Promise<{ device: DeviceWithState; token: string }> {
  const [device] = await createDevices(deps, [fresh]);
  if (!device) throw new Error('a device create made no device');
  return { device, token: fresh.token };
}
