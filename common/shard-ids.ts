import { randomUUID } from 'node:crypto';
import { shardOf } from './redis-keys';

/**
 * A new random id in the same shard as `ownerId`, so a record looked up by its own id (a command)
 * shares its owner's slot and one script can write both (docs/architecture.md "Redis Cluster").
 * A UUID lands in a given shard one time in SHARDS: a few draws on average.
 */
export function idInShardOf(ownerId: string): string {
  const shard = shardOf(ownerId);
  for (;;) {
    const id = randomUUID();
    if (shardOf(id) === shard) return id;
  }
}
