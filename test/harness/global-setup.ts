import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMosquitto, startPostgres, startRedis, startRedisCluster, startTemporal } from '../../scripts/dev-servers';
import { reapCrashedRuns, recordRun } from './leftovers';
import { PROJECT_ROOT, TEMP_DIR_PREFIX } from './state';

/**
 * Starts Redis, a 3-master Redis Cluster (the `redis-cluster` jest project runs its test files
 * against it: test/harness/config.ts), Mosquitto, Temporal and PostgreSQL for this jest run;
 * workers inherit the env it sets.
 */
export default async function globalSetup(): Promise<void> {
  await reapCrashedRuns();
  const dir = await mkdtemp(join(tmpdir(), TEMP_DIR_PREFIX));
  const redisStarted = startRedis({ dir });
  const clusterStarted = startRedisCluster({ dir });
  // Devices log in against the Redis their test file writes to, whichever of the two it is.
  const mqttStarted = Promise.all([redisStarted, clusterStarted]).then(([single, nodes]) =>
    startMosquitto({ dir, deviceAuth: { redis: [new URL(single.url).host, nodes.nodes.split(',')[0] ?? ''], topicRoot: '+' } }),
  );
  const [redis, mqtt, temporal, postgres, cluster] = await Promise.allSettled([
    redisStarted,
    mqttStarted,
    startTemporal({ dir, projectRoot: PROJECT_ROOT }),
    startPostgres({ dir }),
    clusterStarted,
  ]);
  if (
    redis.status === 'rejected' ||
    mqtt.status === 'rejected' ||
    temporal.status === 'rejected' ||
    postgres.status === 'rejected' ||
    cluster.status === 'rejected'
  ) {
    const all = [redis, mqtt, temporal, postgres, cluster];
    const started = all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    await Promise.all(started.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
    const reasons = all.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    throw new Error(`Test servers did not start:\n${reasons.join('\n\n')}`);
  }
  const servers = [redis.value, mqtt.value, temporal.value, postgres.value, cluster.value];
  globalThis.__ddsTestServers = { dir, stops: servers.map((server) => server.stop) };
  await recordRun(dir, [redis.value, mqtt.value, temporal.value, postgres.value].map((server) => server.pid).concat(cluster.value.pids));
  Object.assign(process.env, {
    REDIS_URL: redis.value.url,
    MQTT_URL: mqtt.value.url,
    MQTT_USERNAME: mqtt.value.serviceUsername,
    MQTT_PASSWORD: mqtt.value.servicePassword,
    MQTT_DYNSEC_USERNAME: mqtt.value.dynsecUsername,
    MQTT_DYNSEC_PASSWORD: mqtt.value.dynsecPassword,
    TEMPORAL_ADDRESS: temporal.value.address,
    DATABASE_URL: postgres.value.url,
    DDS_TEST_REDIS_CLUSTER_NODES: cluster.value.nodes,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    // Every test file registers its users from 127.0.0.1 into this one Redis: hundreds of accounts
    // an hour from one address. The register throttle's own test sets a small limit and speaks
    // from addresses of its own (test/api/register-throttle.test.ts).
    REGISTER_MAX_PER_ADDRESS: '1000000',
  });
}
