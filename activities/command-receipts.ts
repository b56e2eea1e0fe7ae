import { rooms, type CommandState } from '../common/contracts';
import type { Redis } from '../common/redis';
import { commandView, createCommandStore, type StoredCommand } from '../store/commands';
import type { EmitToRooms } from './socket-events';

/**
 * The one place a command's state changes (docs/commands.md): the store step, then the `command`
 * event to the device's and project's rooms when it did change. Used by ingest (sent, superseded,
 * acknowledged by echo; a write's ingest step makes its record, queued, and ingest announces it
 * here), the MQTT bridge (acknowledged on the ack topic) and the twin's flush (sent, expired,
 * superseded).
 */
export function createCommandReceipts(redis: Redis, emit: EmitToRooms) {
  const store = createCommandStore(redis);
  const announce = async ({ command, seq }: { command: StoredCommand; seq: number }): Promise<void> => {
    await emit([rooms.device(command.deviceId), rooms.project(command.projectId)], 'command', { ...commandView(command), seq });
  };
  return {
    /** The `command` event of a change already stored. */
    announce,
    /** Moves a command; false when it does not exist (or is gone with its device). */
    async move(deviceId: string, commandId: string, state: Exclude<CommandState, 'queued'>, at = new Date().toISOString()): Promise<boolean> {
      const change = await store.move(deviceId, commandId, state, at);
      if (change?.changed) await announce(change);
      return change !== null;
    },
  };
}

export type CommandReceipts = ReturnType<typeof createCommandReceipts>;
