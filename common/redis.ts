import { Cluster, Command, Redis as RedisClient, ReplyError } from 'ioredis';
import type { Config } from './config';
import { holdWritesPerIteration } from './cork';
import { DependencyUnavailableError } from './errors';

/** How long one command may wait for Redis (queued while reconnecting, or sent and unanswered). */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
/** The deadline of a worker's commands: no client waits on them, and a failed activity is retried. */
export const WORKER_REDIS_COMMAND_TIMEOUT_MS = 10_000;

const isReplyError = (err: Error): boolean => err instanceof (ReplyError as new () => Error);

/**
 * One Redis connection (or, with REDIS_CLUSTER_NODES, one ioredis Cluster). Concurrent commands
 * share one round trip: a connection sends each command as it is issued and reads the replies in
 * order, so none waits on another's reply; and the commands of one iteration of the event loop
 * leave in one socket write (holdCommandsPerIteration). ioredis auto-pipelining, which also
 * joins a turn's commands, is off: each of its batches (a Pipeline holding every Command of a
 * turn) stays reachable past the young-generation collections, so every command was promoted to
 * the old generation; at line rate that made scavenges 4–5 times longer and the ingest tail twice
 * as long (docs/benchmarks.md "What today's settings were measured against").
 *
 * Every command has a deadline (`commandTimeout`), so an outage is a fast failure, never a hang
 * (docs/architecture.md "Outages"):
 * - Redis down (connection refused or lost): ioredis reconnects on its own; a command issued
 *   meanwhile waits in the offline queue and fails after REDIS_COMMAND_TIMEOUT_MS. A command that
 *   failed so is dropped from the queue, not sent when the connection is back: its caller was
 *   told it failed. `maxRetriesPerRequest` bounds how often a command sent on a connection that
 *   then dropped is resent after reconnects.
 * - Redis frozen (SIGSTOP, a hung host): the connection stays open, so only the deadline ends
 *   the wait; a command already written is executed by Redis when it wakes (a 503 for a write
 *   may therefore still land).
 * Every failure that is not Redis's own reply (a ReplyError: a script error, a wrong type) is
 * rethrown as DependencyUnavailableError('redis'), so callers and the error middleware know it by
 * type rather than by message.
 * Worker processes pass WORKER_REDIS_COMMAND_TIMEOUT_MS: a spurious timeout there (a CPU-starved
 * event loop runs the timer before it reads the reply) would only cost an activity retry.
 * The deadline applies to blocking commands too: a BLPOP / XREAD BLOCK on this client must block
 * for less than REDIS_COMMAND_TIMEOUT_MS.
 */
export function createRedis(
  target: Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>,
  connectionName: string,
  commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS,
): Redis {
  const options = {
    connectionName,
    commandTimeout: commandTimeoutMs,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  };
  const redis: Redis = target.REDIS_CLUSTER_NODES
    ? new Cluster(target.REDIS_CLUSTER_NODES, { enableOfflineQueue: true, redisOptions: options })
    : new RedisClient(target.REDIS_URL, options);
  if (redis instanceof Cluster) redis.on('+node', holdCommandsPerIteration);
  else holdCommandsPerIteration(redis);
  // A Cluster's sendCommand takes a third argument (the node): every argument is passed on.
  const send = redis.sendCommand.bind(redis) as (command: Command, ...rest: unknown[]) => unknown;
  redis.sendCommand = ((command: Command, ...rest: unknown[]) => {
    // The offline queue is flushed through here after a reconnect: a command that already failed stays unsent.
    if (command.isSettled) return command.promise;
    const reject = command.reject;
    command.reject = (err: Error) =>
      reject(
        isReplyError(err) || err instanceof DependencyUnavailableError ? err : new DependencyUnavailableError('redis', { cause: err }),
      );
    return send(command, ...rest);
  }) as typeof redis.sendCommand;
  return redis;
}

/** Holds a connection's commands of one event-loop iteration for one socket write (common/cork.ts). */
function holdCommandsPerIteration(client: RedisClient): void {
  const send = client.sendCommand.bind(client);
  const hold = holdWritesPerIteration();
  client.sendCommand = ((command: Command, stream?: Parameters<RedisClient['sendCommand']>[1]) => {
    if (client.stream) hold(client.stream);
    return send(command, stream);
  }) as RedisClient['sendCommand'];
}

/** A connection to a standalone Redis, or an ioredis Cluster (REDIS_CLUSTER_NODES). */
export type Redis = RedisClient | Cluster;

/** The name a connection (or each of a Cluster's node connections) was given at createRedis. */
function connectionNameOf(redis: Redis): string | undefined {
  return redis instanceof Cluster ? redis.options.redisOptions?.connectionName : redis.options.connectionName;
}

/**
 * The pub/sub connections Redis knows (CLIENT LIST TYPE pubsub), of every node of a Cluster,
 * replicas included (ioredis puts a Cluster's subscriber on any node, and a failover can leave it
 * on a replica), each with the name it was given at createRedis: a Cluster's subscriber connection
 * is named `ioredis-cluster(subscriber):{name}` by ioredis. A node that does not answer (down, or
 * gone in a failover) holds none of this client's live subscriptions and is left out.
 */
async function pubsubClients(redis: Redis): Promise<{ connectionName: string; line: string }[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('all') : [redis];
  const lists = await Promise.allSettled(nodes.map((node) => node.call('CLIENT', 'LIST', 'TYPE', 'pubsub')));
  if (!(redis instanceof Cluster) && lists[0]?.status === 'rejected') throw lists[0].reason;
  return lists
    .flatMap((list) => (list.status === 'fulfilled' ? String(list.value).split('\n') : []))
    .map((line) => ({ connectionName: (/ name=(\S*)/.exec(line)?.[1] ?? '').replace(/^ioredis-cluster\([a-z]+\):/, ''), line }));
}

/**
 * The CLIENT LIST line of `sub`'s pub/sub connection, if Redis knows it. On a Cluster, asked of the
 * nodes `sub` itself knows: its subscriber sits on one of them, whereas `pub`'s node list, read when
 * `pub` connected, may lack a replica that joined the cluster later (ioredis rereads it only on a
 * redirection), and a gateway whose subscriber sat on such a replica stayed unready for good. A
 * standalone `sub` in subscriber mode takes no CLIENT command, so `pub` asks.
 */
export async function subscriptionLineOf(pub: Redis, sub: Redis): Promise<string | undefined> {
  const name = connectionNameOf(sub);
  return (await pubsubClients(sub instanceof Cluster ? sub : pub)).find((c) => c.connectionName === name)?.line;
}

/** The slot whose master a Cluster client publishes through (PUBLISH has no key: ioredis would pick a node at random). */
const PUBLISH_SLOT = 0;

/**
 * PUBLISH, in the order of the calls: a standalone connection keeps it; on a Cluster every publish
 * of this client goes through one master (the one serving PUBLISH_SLOT), whose cluster bus hands
 * them to the other masters' subscribers in that order. Through a random master each time, two
 * events of one device could reach a subscriber swapped (docs/realtime.md sequence numbers would
 * see a gap that is not one).
 */
export function publishInOrder(redis: Redis, channel: string, message: string | Buffer): Promise<number> {
  if (!(redis instanceof Cluster)) return redis.publish(channel, message);
  const command = new Command('publish', [channel, message], { replyEncoding: 'utf8' });
  void redis.sendCommand(command, undefined, { slot: PUBLISH_SLOT });
  return command.promise as Promise<number>;
}
