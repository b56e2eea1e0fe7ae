import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { findExecutable } from './find-executable';

const PLUGIN_FILE = 'mosquitto_dynamic_security.so';

const KNOWN_PLUGIN_PATHS = [
  `/usr/lib/x86_64-linux-gnu/${PLUGIN_FILE}`,
  `/usr/lib/aarch64-linux-gnu/${PLUGIN_FILE}`,
  `/usr/lib/${PLUGIN_FILE}`,
  `/usr/local/lib/${PLUGIN_FILE}`,
  `/usr/lib64/${PLUGIN_FILE}`,
  `/opt/homebrew/lib/${PLUGIN_FILE}`,
];

function fromDpkg(): string | null {
  try {
    const files = execFileSync('dpkg', ['-L', 'mosquitto'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return files.split('\n').find((file) => file.endsWith(`/${PLUGIN_FILE}`)) ?? null;
  } catch {
    return null;
  }
}

/** Path of Mosquitto's dynamic security plugin, from the known install places or dpkg. */
export function findDynsecPlugin(): string {
  const found = KNOWN_PLUGIN_PATHS.find((path) => existsSync(path)) ?? fromDpkg();
  if (!found) throw new Error(`${PLUGIN_FILE} not found (looked in ${KNOWN_PLUGIN_PATHS.join(', ')} and dpkg -L mosquitto)`);
  return found;
}

/** The device plugin scripts/setup.sh builds (deploy/mosquitto-plugin/dds_device_auth.c, docs/broker-credentials.md). */
export function findDeviceAuthPlugin(): string {
  // The repository root is two levels up from scripts/dev-servers, three from dist/scripts/dev-servers.
  const candidates = ['../..', '../../..'].map((up) => join(__dirname, up, '.tools/mosquitto/dds_device_auth.so'));
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`${candidates[0]} not found; run \`npm run setup\` to build the broker's device plugin`);
  return found;
}

/**
 * The device plugin's settings: the Redis servers holding devices (host:port, each may be a
 * Redis Cluster node), the topic root (`+`: any, for a broker shared by tests with their own
 * roots) and the admin allowed to drop a device's session.
 */
export interface DeviceAuth {
  plugin: string;
  redis: string[];
  topicRoot: string;
  admin: string;
}

/** The mosquitto binary: on PATH, or in an sbin directory that a normal user's PATH often lacks. */
export function findMosquitto(): string {
  const found = findExecutable('mosquitto', ['/usr/sbin', '/usr/local/sbin']);
  if (!found) throw new Error('mosquitto not found on PATH nor in /usr/sbin; run `npm run setup`');
  return found;
}

/**
 * The gateways' shared subscription can lag behind a burst; Mosquitto's default queue of 1000
 * messages per client would drop the rest silently (docs/operations.md, "Broker").
 */
export const MAX_QUEUED_MESSAGES = 100_000;

/**
 * What devices publish before a service client has subscribed to their pin topics since the broker
 * started is kept, up to this many messages, and published again once one has (the device plugin:
 * deploy/mosquitto-plugin/dds_device_auth.c; deploy/mosquitto/mosquitto.conf sets the same).
 */
export const HELD_UNTIL_SERVICE = 100_000;

/** Packets larger than this are refused by the broker (DESIGN §11, MQTT_MAX_PACKET_BYTES; deploy/mosquitto/mosquitto.conf). */
export const MAX_PACKET_BYTES = 65_536;

/** A TLS listener: its port and the server certificate and key it presents (PEM files). */
export interface MosquittoTls {
  port: number;
  certFile: string;
  keyFile: string;
}

/**
 * A broker on 127.0.0.1:port that only admits clients of the dynamic security plugin, with
 * Nagle's algorithm off (`set_tcp_nodelay`, as in deploy/mosquitto/mosquitto.conf: docs/operations.md, "Broker")
 * and packets over MAX_PACKET_BYTES refused (`max_packet_size`: the client that sends one is disconnected).
 * `user` keeps the current user, so a broker started as root still reads its files in a 0700 dir.
 * `maxQueuedMessages` (default MAX_QUEUED_MESSAGES) is per client; null leaves Mosquitto's own
 * default, as the ingest bench does to show what that default drops. `persistenceDir` keeps the
 * broker's sessions and queues there across a restart (as deploy/mosquitto/mosquitto.conf does);
 * without it they live in memory. `tls` adds a second listener on 127.0.0.1 that speaks MQTT over
 * TLS (1.2 at least) with that certificate; the same accounts log in on both (docs/tls.md).
 */
export function mosquittoConf(options: {
  port: number;
  plugin: string;
  dynsecFile: string;
  maxQueuedMessages?: number | null;
  persistenceDir?: string;
  tls?: MosquittoTls;
  deviceAuth?: DeviceAuth;
}): string {
  const auth = options.deviceAuth;
  const maxQueued = options.maxQueuedMessages === undefined ? MAX_QUEUED_MESSAGES : options.maxQueuedMessages;
  return [
    'per_listener_settings false',
    `user ${userInfo().username}`,
    ...(options.persistenceDir ? ['persistence true', `persistence_location ${options.persistenceDir}/`] : ['persistence false']),
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    'log_type notice',
    'log_timestamp_format %Y-%m-%dT%H:%M:%S',
    `listener ${options.port} 127.0.0.1`,
    'allow_anonymous false',
    'set_tcp_nodelay true',
    `max_packet_size ${MAX_PACKET_BYTES}`,
    ...(maxQueued === null ? [] : [`max_queued_messages ${maxQueued}`]),
    ...(auth
      ? [
          `plugin ${auth.plugin}`,
          `plugin_opt_redis ${auth.redis.join(',')}`,
          `plugin_opt_topic_root ${auth.topicRoot}`,
          `plugin_opt_admin ${auth.admin}`,
          `plugin_opt_hold_until_service ${HELD_UNTIL_SERVICE}`,
        ]
      : []),
    `plugin ${options.plugin}`,
    `plugin_opt_config_file ${options.dynsecFile}`,
    ...(options.tls
      ? [
          `listener ${options.tls.port} 127.0.0.1`,
          `certfile ${options.tls.certFile}`,
          `keyfile ${options.tls.keyFile}`,
          'tls_version tlsv1.2',
        ]
      : []),
    '',
  ].join('\n');
}
