import type { CommandState } from '../common/contracts';
import type { Redis } from '../common/redis';
import { createCommandStore } from '../store/commands';

/**
 * The one place a command's state changes after its write made it (docs/commands.md): one
 * atomic step that also publishes its `command` event (command-3.lua). Used by ingest (sent,
 * superseded, acknowledged by echo), the MQTT bridge (acknowledged on the ack topic) and the
 * twin's flush (sent, expired, superseded). A write's ingest step makes its record, queued, and
 * publishes that first event itself (store-point-12.lua).
 */
export function createCommandReceipts(redis: Redis) {
  const store = createCommandStore(redis);
  return {
    /** Moves a command; false when it does not exist (or is gone with its device). */
    async move(deviceId: string, commandId: string, state: Exclude<CommandState, 'queued'>, at = new Date().toISOString()): Promise<boolean> {
      return (await store.move(deviceId, commandId, state, at)) !== null;
    },
  };
}

export type CommandReceipts = ReturnType<typeof createCommandReceipts>;
