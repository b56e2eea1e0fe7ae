import { AppError, isAppError } from '../../common/errors';
import { newDevice } from '../../store/devices';
import type { RouteDeps } from '../routes/route-deps';
import { createDevice } from './create-device';

export interface ProvisionRequest {
  key: string;
  serial: string;
  name?: string | undefined;
}

/**
 * A device's first boot (DESIGN §14, docs/provisioning.md): the key names its template; the
 * serial is claimed in the template's slot first (of two first boots, or a boot and an import, with
 * one serial, one makes the device, the other is 409); then the device is made by the one create path
 * (create-device.ts: the project owner's devices quota, broker credentials, the twin's start),
 * with the template and the serial. A create that fails gives the serial back.
 */
export async function provisionDevice(
  deps: Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'carryOutNow' | 'logger'>,
  templateId: string,
  { serial, name }: ProvisionRequest,
): Promise<{ deviceId: string; token: string; topicRoot: string }> {
  const { stores, logger, config } = deps;
  const template = await stores.templates.get(templateId);
  if (!template) throw new AppError('INVALID_PROVISIONING_KEY');
  const fresh = newDevice(template.projectId, { name: name ?? serial, description: '', tags: [], templateId, serial });
  const deviceId = fresh.device.id;
  const claim = [{ serial, deviceId }];
  if ((await stores.provisioning.claimSerials(templateId, claim)).length > 0) throw new AppError('ALREADY_PROVISIONED');
  try {
    const { token } = await createDevice(deps, fresh);
    logger.info({ deviceId, templateId, projectId: template.projectId }, 'device provisioned itself');
    return { deviceId, token, topicRoot: config.MQTT_TOPIC_ROOT };
  } catch (err) {
    await stores.provisioning
      .releaseSerials(templateId, claim)
      .catch((releaseErr: unknown) =>
        logger.warn({ err: releaseErr, templateId, deviceId }, "a failed provisioning's serial is left claimed"),
      );
    // The template deleted between the key's check and the create: the key no longer opens anything.
    if (isAppError(err) && err.code === 'VALIDATION_ERROR') throw new AppError('INVALID_PROVISIONING_KEY');
    throw err;
  }
}
