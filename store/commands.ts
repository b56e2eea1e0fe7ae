import type { Command, CommandState } from '../common/contracts';
import { deviceEventRoute } from '../common/device-event-route';
import type { Redis } from '../common/redis';
import { keys, shardOf } from '../common/redis-keys';
import { isCommandIdOf } from '../common/shard-ids';
import { luaScript } from './lua/load';

const RUN = luaScript('command-4');
/** Commands one MGET reads. */
const MGET_CHUNK = 500;

/** How long a command's record is kept, and how many of a device's are listed. */
export const COMMAND_KEEP_S = 7 * 86_400;
export const COMMANDS_PER_DEVICE = 100;

/** The record as stored: the command, its project (for the rooms its events go to) and its creation in ms. */
export interface StoredCommand extends Command {
  projectId: string;
  createdMs: number;
}

export interface CommandChange {
  command: StoredCommand;
  changed: boolean;
}

/** Which states each state may be reached from. */
const FROM: Record<Exclude<CommandState, 'queued'>, CommandState[]> = {
  sent: ['queued'],
  // The device may echo before the sender has marked the command sent.
  acknowledged: ['queued', 'sent'],
  expired: ['queued'],
  // Sent and still awaited when a newer command on its pin was sent: its echo can no longer be told apart.
  superseded: ['queued', 'sent'],
};

/** The command a client sees: its state as of `now` (a queued one past its TTL is expired, sent or not yet). */
export function commandView(stored: StoredCommand, now = Date.now()): Command {
  const { projectId: _p, createdMs: _c, ...command } = stored;
  const expired = command.state === 'queued' && command.expiresAt !== null && Date.parse(command.expiresAt) <= now;
  return expired ? { ...command, state: 'expired' } : command;
}

/** Commands with a receipt (docs/commands.md): one record per app write toward a device, made by its ingest step (store/store-point.ts). */
export function createCommandStore(redis: Redis) {
  const keysOf = (deviceId: string, commandId: string) => [
    keys.device(deviceId),
    keys.command(commandId),
    keys.deviceState(deviceId),
    keys.devicePins(deviceId),
  ];
  const run = async (deviceId: string, commandId: string, state: Exclude<CommandState, 'queued'>, at: string) => {
    const reply = await RUN(redis, keysOf(deviceId, commandId), [state, at, FROM[state].join(','), deviceId, ...deviceEventRoute]);
    if (!reply) return null;
    const [json, changed, replaced] = reply as [string, number, string];
    return { change: { command: JSON.parse(json) as StoredCommand, changed: Number(changed) === 1 }, replaced };
  };

  return {
    /**
     * The one place a command's state changes after its write made it (docs/commands.md), for
     * ingest (sent, superseded, acknowledged by echo), the MQTT bridge (acknowledged on the ack
     * topic) and the twin's flush (sent, expired, superseded): moves it to `state` at `at` if its
     * current state allows it (see FROM), and publishes its `command` event in the same step
     * (command-4.lua, docs/realtime.md). Null when the command (or its device) does not exist; an
     * id that cannot be one of the device's (a device's `/ack` payload is any text) costs no Redis
     * call, so it never names a key in another cluster slot.
     */
    async move(
      deviceId: string,
      commandId: string,
      state: Exclude<CommandState, 'queued'>,
      at = new Date().toISOString(),
    ): Promise<CommandChange | null> {
      if (!isCommandIdOf(deviceId, commandId)) return null;
      const moved = await run(deviceId, commandId, state, at);
      // A command sent on a pin where an older one was still awaited: the older one ends superseded
      // (docs/commands.md), in a second step; a node stopped between the two leaves it `sent`.
      if (moved?.replaced) await run(deviceId, moved.replaced, 'superseded', at);
      return moved?.change ?? null;
    },

    async get(commandId: string): Promise<StoredCommand | null> {
      const json = await redis.get(keys.command(commandId));
      return json === null ? null : (JSON.parse(json) as StoredCommand);
    },

    /**
     * Many commands at once (a job's look at its devices' receipts): one MGET per shard and chunk,
     * not a GET each; null for a command that is gone.
     */
    async many(commandIds: readonly string[]): Promise<Map<string, StoredCommand | null>> {
      const byShard = new Map<number, string[]>();
      for (const id of commandIds) {
        const shard = shardOf(id);
        const ids = byShard.get(shard);
        if (ids) ids.push(id);
        else byShard.set(shard, [id]);
      }
      const found = new Map<string, StoredCommand | null>();
      const reads = [...byShard.values()].flatMap((ids) =>
        Array.from({ length: Math.ceil(ids.length / MGET_CHUNK) }, (_, k) => ids.slice(k * MGET_CHUNK, (k + 1) * MGET_CHUNK)),
      );
      await Promise.all(
        reads.map(async (ids) => {
          const docs = await redis.mget(...ids.map((id) => keys.command(id)));
          ids.forEach((id, i) => {
            const json = docs[i];
            found.set(id, json ? (JSON.parse(json) as StoredCommand) : null);
          });
        }),
      );
      return found;
    },

    /** A device's most recent commands, newest first. */
    async recent(deviceId: string, limit: number): Promise<StoredCommand[]> {
      const ids = await redis.zrevrange(keys.deviceCommands(deviceId), 0, limit - 1);
      if (ids.length === 0) return [];
      const docs = await Promise.all(ids.map((id) => redis.get(keys.command(id))));
      return docs.flatMap((json) => (json === null ? [] : [JSON.parse(json) as StoredCommand]));
    },
  };
}

export type CommandStore = ReturnType<typeof createCommandStore>;
