import type { Config } from '../../common/config';
import type { Logger } from '../../common/logger';
import { type BrokerCredentials, type BrokerCredentialsOptions, checkDeviceId } from './credentials-contract';
import { createDevicePluginCredentials } from './device-plugin-credentials';
export type { BrokerCredentials, BrokerCredentialsOptions } from './credentials-contract';
import { connectDynsecClient, type DynsecClient, type DynsecCommand, throwOnError } from './dynsec-client';

/** For a broker that authenticates devices its own way: the service leaves its credentials alone. */
export const disabledBrokerCredentials: BrokerCredentials = {
  async provision() {},
  async changePassword() {},
  async remove() {},
  async close() {},
};

const ROLE_EXISTS = 'Role already exists';
const ROLE_MISSING = 'Role not found';
const CLIENT_EXISTS = 'Client already exists';
const CLIENT_MISSING = 'Client not found';

type AclType = 'publishClientSend' | 'publishClientReceive' | 'subscribePattern';

interface Acl {
  acltype: AclType;
  topic: string;
  allow: boolean;
  priority: number;
}

/**
 * Mosquitto 2.0's dynamic security plugin takes `%u` in an ACL topic literally, so each device
 * gets its own role. Its allow rules outrank a catch-all deny, so even a broker whose default ACL
 * access is looser confines the device to its own topics.
 */
export function deviceRole(topicRoot: string, deviceId: string): { rolename: string; acls: Acl[] } {
  const base = `${topicRoot}/${deviceId}`;
  const allow = (acltype: AclType, topic: string): Acl => ({ acltype, topic, allow: true, priority: 1 });
  const deny = (acltype: AclType): Acl => ({ acltype, topic: '#', allow: false, priority: 0 });
  return {
    rolename: `dds-device-${deviceId}`,
    acls: [
      allow('publishClientSend', `${base}/pin/+`),
      allow('publishClientSend', `${base}/status`),
      allow('publishClientSend', `${base}/info`),
      allow('publishClientSend', `${base}/ack`),
      allow('publishClientSend', `${base}/ota/status`),
      allow('subscribePattern', `${base}/pin/+/set`),
      allow('publishClientReceive', `${base}/pin/+/set`),
      allow('subscribePattern', `${base}/ota`),
      allow('publishClientReceive', `${base}/ota`),
      deny('publishClientSend'),
      deny('subscribePattern'),
      deny('publishClientReceive'),
    ],
  };
}

/** Runs tasks for one key one after another, so multi-step changes to a device never interleave. */
function keyedQueue(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

function dynsecCredentials(dynsec: DynsecClient, topicRoot: string, logger: Logger): BrokerCredentials {
  const serially = keyedQueue();

  async function provision(deviceId: string, password: string): Promise<void> {
    const role = deviceRole(topicRoot, deviceId);
    const roles = [{ rolename: role.rolename }];
    const replies = await dynsec.send([
      { command: 'createRole', ...role },
      { command: 'createClient', username: deviceId, password, roles },
    ]);
    throwOnError(replies, [ROLE_EXISTS, CLIENT_EXISTS]);
    const [roleReply, clientReply] = replies;
    const updates: DynsecCommand[] = [];
    if (roleReply?.error === ROLE_EXISTS) updates.push({ command: 'modifyRole', ...role });
    if (clientReply?.error === CLIENT_EXISTS) {
      updates.push({ command: 'modifyClient', username: deviceId, password, roles });
    }
    if (updates.length > 0) throwOnError(await dynsec.send(updates));
    logger.debug({ deviceId, updated: updates.length > 0 }, 'broker credentials provisioned');
  }

  return {
    async provision(deviceId, password) {
      checkDeviceId(deviceId);
      return serially(deviceId, () => provision(deviceId, password));
    },
    async changePassword(deviceId, password) {
      checkDeviceId(deviceId);
      return serially(deviceId, async () => {
        const replies = await dynsec.send([{ command: 'setClientPassword', username: deviceId, password }]);
        throwOnError(replies, [CLIENT_MISSING]);
        if (replies[0]?.error === CLIENT_MISSING) await provision(deviceId, password);
        else logger.debug({ deviceId }, 'broker password changed');
      });
    },
    async remove(deviceId) {
      checkDeviceId(deviceId);
      return serially(deviceId, async () => {
        throwOnError(
          await dynsec.send([
            { command: 'deleteClient', username: deviceId },
            { command: 'deleteRole', rolename: deviceRole(topicRoot, deviceId).rolename },
          ]),
          [CLIENT_MISSING, ROLE_MISSING],
        );
        logger.debug({ deviceId }, 'broker credentials removed');
      });
    },
    close: () => dynsec.close(),
  };
}

/**
 * Manages device logins in Mosquitto's dynamic security plugin as its admin. Fails at start when
 * the broker refuses the admin or the plugin does not answer.
 */
export async function createBrokerCredentials(options: BrokerCredentialsOptions): Promise<BrokerCredentials> {
  const dynsec = await connectDynsecClient(options);
  try {
    throwOnError(await dynsec.send([{ command: 'getDefaultACLAccess' }]));
  } catch (err) {
    await dynsec.close();
    throw err;
  }
  return dynsecCredentials(dynsec, options.topicRoot, options.logger);
}

/**
 * With MQTT_DYNSEC_USERNAME and MQTT_DYNSEC_PASSWORD set (DESIGN §6): the broker's device plugin
 * (MQTT_DEVICE_AUTH=plugin, the default) or an account per device in dynamic security (`dynsec`).
 */
export async function brokerCredentialsFromConfig(config: Config, logger: Logger): Promise<BrokerCredentials> {
  const { MQTT_DYNSEC_USERNAME: username, MQTT_DYNSEC_PASSWORD: password } = config;
  if (username === undefined && password === undefined) {
    logger.info('MQTT_DYNSEC_USERNAME/PASSWORD not set: the broker authenticates devices its own way');
    return disabledBrokerCredentials;
  }
  if (username === undefined || password === undefined) {
    throw new Error('MQTT_DYNSEC_USERNAME and MQTT_DYNSEC_PASSWORD must be set together');
  }
  const options = { url: config.MQTT_URL, username, password, topicRoot: config.MQTT_TOPIC_ROOT, logger };
  return config.MQTT_DEVICE_AUTH === 'plugin' ? createDevicePluginCredentials(options) : createBrokerCredentials(options);
}
