import { idInShardOf } from '../../common/shard-ids';
import { fnv1a, keys, SHARDS, shardOf } from '../../common/redis-keys';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('shards of ids (docs/architecture.md "Redis Cluster")', () => {
  it('hashes with 32-bit FNV-1a, so keys written by earlier releases keep their slot', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(fnv1a('bar', fnv1a('foo'))).toBe(fnv1a('foobar'));
    expect(keys.device('foobar')).toBe(`device:{s${0xbf9cf968 % SHARDS}}:foobar`);
  });

  it('gives each id its own shard whatever the order ids are asked in', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `owner-${i}`);
    const once = ids.map((id) => fnv1a(id) % SHARDS);
    expect(ids.flatMap((id) => [shardOf(id), shardOf(id)])).toEqual(once.flatMap((s) => [s, s]));
    expect([...ids].reverse().map(shardOf)).toEqual([...once].reverse());
  });

  it('makes random v4 UUIDs in the shard of their owner', () => {
    const owners = Array.from({ length: 200 }, (_, i) => `device-${i}`);
    const made = owners.flatMap((owner) => Array.from({ length: 10 }, () => ({ owner, id: idInShardOf(owner) })));
    for (const { owner, id } of made) {
      expect(id).toMatch(UUID_V4);
      expect(shardOf(id)).toBe(shardOf(owner));
    }
    expect(new Set(made.map((m) => m.id)).size).toBe(made.length);
    // The chosen ending is spread over the 256, not always the first that fits.
    expect(new Set(made.map((m) => m.id.slice(-2))).size).toBeGreaterThan(200);
  });
});
