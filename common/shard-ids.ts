import { randomUUID } from 'node:crypto';
import { fnv1a, SHARDS, shardOf } from './redis-keys';

const HEX = '0123456789abcdef';

/**
 * A new random id in the same shard as `ownerId`, so a record looked up by its own id (a command)
 * shares its owner's slot and one script can write both (docs/architecture.md "Redis Cluster").
 * A random UUID (v4) whose last two hex digits, random in a v4 UUID, are chosen: the first of the
 * 256 endings, counted on from its own, that lands in the shard (all 256 miss one time in ~15
 * million, and a new UUID is drawn). One UUID and at most 256 two-character hashes per id.
 */
export function idInShardOf(ownerId: string): string {
  const shard = shardOf(ownerId);
  for (;;) {
    const uuid = randomUUID();
    const head = uuid.slice(0, -2);
    const headHash = fnv1a(head);
    const own = Number.parseInt(uuid.slice(-2), 16);
    for (let step = 0; step < 256; step++) {
      const k = (own + step) & 255;
      const tail = `${HEX[k >> 4]}${HEX[k & 15]}`;
      if (fnv1a(tail, headHash) % SHARDS === shard) return head + tail;
    }
  }
}

const COMMAND_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Whether `id` can be a command of `deviceId`'s (idInShardOf made it): a v4 UUID in the device's
 * shard. A device's `/ack` payload is checked with it before any key is built from it, so a
 * garbage id never reaches a script (on Redis Cluster it would name a key in another slot).
 */
export function isCommandIdOf(deviceId: string, id: string): boolean {
  return COMMAND_ID.test(id) && shardOf(id) === shardOf(deviceId);
}
