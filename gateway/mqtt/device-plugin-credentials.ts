import type { Logger } from '../../common/logger';
import { type BrokerCredentials, type BrokerCredentialsOptions, checkDeviceId } from './credentials-contract';
import { connectDynsecClient, type DynsecClient, throwOnError } from './dynsec-client';

/** The control topic of the broker's device plugin (deploy/mosquitto-plugin/dds_device_auth.c). */
export const DEVICE_PLUGIN_TOPIC = '$CONTROL/dds-device-auth/v1';

/** A device id no device has: kicking it proves the plugin answers. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

function pluginCredentials(plugin: DynsecClient, logger: Logger): BrokerCredentials {
  async function kick(deviceId: string, why: string): Promise<void> {
    checkDeviceId(deviceId);
    throwOnError(await plugin.send([{ command: 'kickClient', username: deviceId }]));
    logger.debug({ deviceId }, why);
  }
  return {
    // The device's Redis record is its account: the plugin reads it at every login.
    async provision(deviceId) {
      checkDeviceId(deviceId);
    },
    // The new token's hash is staged in Redis before this call, so the old one already fails at login.
    changePassword: (deviceId) => kick(deviceId, 'broker session of a changed token dropped'),
    // The device's record is gone from Redis before this call (its retire intent follows the delete).
    remove: (deviceId) => kick(deviceId, 'broker session of a removed device dropped'),
    close: () => plugin.close(),
  };
}

/**
 * Device logins checked by the broker's device plugin against Redis (docs/broker-credentials.md):
 * adding a device costs the broker nothing, and a token change or a delete drops the device's
 * session through the plugin's control topic, as the dynamic security admin. Fails at start when
 * the broker refuses the admin or the plugin does not answer.
 */
export async function createDevicePluginCredentials(options: BrokerCredentialsOptions): Promise<BrokerCredentials> {
  const plugin = await connectDynsecClient({ ...options, controlTopic: DEVICE_PLUGIN_TOPIC });
  try {
    throwOnError(await plugin.send([{ command: 'kickClient', username: NOBODY }]));
  } catch (err) {
    await plugin.close();
    throw err;
  }
  return pluginCredentials(plugin, options.logger);
}
