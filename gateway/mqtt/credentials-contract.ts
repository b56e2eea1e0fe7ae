import type { Logger } from '../../common/logger';

/**
 * A device's login at the broker (DESIGN §6): username = deviceId, password = its `dt_` token.
 * Every operation is idempotent; changing the password or removing the device also drops its
 * current session.
 */
export interface BrokerCredentials {
  /** Creates the device's broker client, or gives an existing one this password (the device plugin: nothing, Redis is its store). */
  provision(deviceId: string, password: string): Promise<void>;
  /**
   * The old password stops working at once and the device's session is disconnected. Rejects with
   * DynsecUnconfirmedError when the broker may or may not have taken the new password.
   */
  changePassword(deviceId: string, password: string): Promise<void>;
  /** Deletes the device's broker client, or for the plugin drops its session; a missing one is fine. */
  remove(deviceId: string): Promise<void>;
  close(): Promise<void>;
}

export interface BrokerCredentialsOptions {
  url: string;
  username: string;
  password: string;
  topicRoot: string;
  logger: Logger;
  /** How long a command waits for the plugin (DynsecClientOptions; bench/provision waits out a slow baseline). */
  timeoutMs?: number;
}

/** Refuses an id that cannot be both a username and one topic level. */
export function checkDeviceId(deviceId: string): void {
  if (deviceId === '' || /[/+#\0]/.test(deviceId)) {
    throw new Error(`device id ${JSON.stringify(deviceId)} cannot be an MQTT username and topic level`);
  }
}
