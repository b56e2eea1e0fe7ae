import { decryptSecret, encryptSecret } from '../../common/credentials';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { streamOf } from '../../common/redis-keys';
import { appendIntent } from '../../store/outbox';
import { newDeviceToken, type DeviceStore } from '../../store/devices';
import { writeTwinMessage } from '../../store/twin-messages';
import { DynsecUnconfirmedError } from '../mqtt/dynsec-client';
import type { BrokerCredentials } from '../mqtt/broker-credentials';
import { settleEntry } from '../outbox/carry-out-now';

/** A new `dt_` token; `applied` false: the broker has not confirmed it yet, and takes it once it answers. */
export interface RotatedToken {
  token: string;
  applied: boolean;
}

/** How long after a change began its `device-token` intent comes due: longer than the request that began it (its broker call ends within 1.5 s). */
const ROLL_FORWARD_AFTER_MS = 5_000;

export interface TokenRotationDeps {
  devices: Pick<DeviceStore, 'stageToken' | 'commitToken' | 'isStagedToken' | 'dropStagedToken'>;
  broker: Pick<BrokerCredentials, 'changePassword'>;
  redis: Redis;
  /** The outbox family of the `device-token` intents (keys.outbox). */
  outbox: string;
  /** The outbox family of the twins' device messages (keys.onlineOutbox): a dropped session is an offline. */
  twinOutbox: string;
  credentialKey: string;
  logger: Logger;
}

/**
 * Changes a device's `dt_` token (its MQTT password) so that a failure at any step leaves either
 * the old or the new token working, and the caller knows which (docs/architecture.md "Nothing
 * half-written"). The broker is the commit point: it keeps only a hash of the password, so a
 * change it took cannot be undone, only completed.
 * 1. Redis stages the new token's hash beside the current one, and the outbox gets a `device-token`
 *    intent carrying the token sealed with CREDENTIAL_KEY, due in ROLL_FORWARD_AFTER_MS. Redis
 *    failing: 503 redis, nothing changed.
 * 2. The broker takes the new password. Refused, or nothing sent: the staged hash and the intent
 *    are dropped and the error rethrown (503 mqtt); the old token works. Sent but unconfirmed (a
 *    frozen or dropped broker may apply it whenever it wakes): the change rolls forward, the
 *    caller gets the new token with `applied` false, and the intent, when due, gives the broker
 *    the token again and commits it (retried until the broker confirms, across restarts).
 * 3. Redis commits the staged token (hash, lookup key, last 4) and the intent goes. Redis failing
 *    here: the broker has the new token already, so the caller gets it and the intent commits it.
 * When the broker took it at once, the twin is told the session was dropped (a status `offline`
 * through the outbox).
 */
export function createTokenRotation(deps: TokenRotationDeps) {
  const { devices, broker, redis, logger } = deps;

  const tellTwinOffline = (deviceId: string): Promise<unknown> =>
    writeTwinMessage(redis, deps.twinOutbox, {
      kind: 'status',
      payload: { deviceId, status: 'offline', at: new Date().toISOString() },
    }).catch((err: unknown) => logger.warn({ err, deviceId }, 'twin not told the session was dropped'));

  return {
    /** Null when the device is gone. */
    async rotate(deviceId: string): Promise<RotatedToken | null> {
      const token = newDeviceToken();
      if (!(await devices.stageToken(deviceId, token))) return null;
      const dueAt = new Date(Date.now() + ROLL_FORWARD_AFTER_MS).toISOString();
      const written = await appendIntent(redis, streamOf(deps.outbox, deviceId), {
        type: 'device-token',
        payload: { deviceId, sealedToken: encryptSecret(token, deps.credentialKey), dueAt },
      }).catch(async (err: unknown) => {
        await devices.dropStagedToken(deviceId, token).catch(() => undefined);
        throw err;
      });
      const forget = () => settleEntry(redis, written.stream, written.entryId);

      try {
        await broker.changePassword(deviceId, token);
      } catch (err) {
        if (!(err instanceof DynsecUnconfirmedError)) {
          await Promise.all([devices.dropStagedToken(deviceId, token), forget()]).catch((dropErr: unknown) =>
            logger.warn({ err: dropErr, deviceId }, 'refused device token not dropped; its intent gives it to the broker again when due'),
          );
          throw err;
        }
        logger.warn({ err, deviceId }, 'broker did not confirm the new device token; its intent re-sends it when due');
        return { token, applied: false };
      }

      try {
        await devices.commitToken(deviceId, token);
        await forget();
      } catch (err) {
        logger.warn({ err, deviceId }, 'the broker took the new device token; its intent records it in Redis when due');
      }
      await tellTwinOffline(deviceId);
      return { token, applied: true };
    },

    /**
     * The `device-token` intent: while the sealed token is still the device's staged one (not
     * committed, not replaced by a later change, the device not gone), the broker is given it
     * again (unconfirmed: thrown, retried) and Redis commits it.
     */
    async rollForward(deviceId: string, sealedToken: string): Promise<void> {
      const token = decryptSecret(sealedToken, deps.credentialKey);
      if (!(await devices.isStagedToken(deviceId, token))) return;
      await broker.changePassword(deviceId, token);
      await devices.commitToken(deviceId, token);
    },
  };
}

export type TokenRotation = ReturnType<typeof createTokenRotation>;
