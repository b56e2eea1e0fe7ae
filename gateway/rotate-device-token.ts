import { newDeviceToken } from '../store/devices';
import { DynsecUnconfirmedError } from './mqtt/dynsec-client';
import type { RouteDeps } from './route-deps';

/** A new `dt_` token; `applied` false: the broker has not confirmed it yet, and takes it once it answers. */
export interface RotatedToken {
  token: string;
  applied: boolean;
}

/**
 * Changes a device's `dt_` token (its MQTT password) so that a failure at any step leaves either
 * the old or the new token working, and the caller knows which (docs/architecture.md "Nothing
 * half-written"). The broker is the commit point: it keeps only a hash of the password, so a
 * change it took cannot be undone, only completed.
 * 1. Redis stages the new token's hash beside the current one. Redis failing: 503 redis, nothing changed.
 * 2. The broker takes the new password. Nothing sent, or refused: the staged hash is dropped and
 *    the error rethrown (503 mqtt); the old token works. Sent but unconfirmed (a frozen or
 *    dropped broker may apply it whenever it wakes): the change rolls forward, the caller gets
 *    the new token with `applied` false, and the settler re-sends it until the broker confirms.
 * 3. Redis commits the staged token (hash, lookup key, last 4). Redis failing here: the broker
 *    has the new token already, so the caller gets it and the settler commits.
 * Null when the device is gone.
 */
export async function rotateDeviceToken(
  { stores, broker, settler, logger }: Pick<RouteDeps, 'stores' | 'broker' | 'settler' | 'logger'>,
  deviceId: string,
): Promise<RotatedToken | null> {
  const token = newDeviceToken();
  if (!(await stores.devices.stageToken(deviceId, token))) return null;
  const context = { deviceId };
  const commit = async (): Promise<boolean> => {
    await stores.devices.commitToken(deviceId, token);
    return true;
  };

  try {
    await broker.changePassword(deviceId, token);
  } catch (err) {
    if (!(err instanceof DynsecUnconfirmedError)) {
      await stores.devices
        .dropStagedToken(deviceId, token)
        .catch((dropErr: unknown) => logger.warn({ err: dropErr, deviceId }, 'staged device token not dropped; the next change replaces it'));
      throw err;
    }
    logger.warn({ err, deviceId }, 'broker did not confirm the new device token; re-sending it until it does');
    settler.settle("give the broker a device's new token", context, async () => {
      // A later change staged its own token (or the device is gone): this one is no longer wanted.
      if (!(await stores.devices.isStagedToken(deviceId, token))) return true;
      await broker.changePassword(deviceId, token);
      return commit();
    });
    return { token, applied: false };
  }

  await commit().catch((err: unknown) => {
    logger.warn({ err, deviceId }, "the broker took the new device token; recording it in Redis later");
    settler.settle("record a device's new token", context, commit);
  });
  return { token, applied: true };
}
