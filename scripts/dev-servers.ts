/** Real Redis, Mosquitto, Temporal and PostgreSQL servers on free ports, for tests and `npm start`. */
export { freePort, onFreePort } from './dev-servers/free-port';
export { startRedis, startRedisCluster, type RedisServer, type RedisClusterServer } from './dev-servers/redis';
export { startMosquitto, type MosquittoServer, type MosquittoOptions } from './dev-servers/mosquitto';
export { MAX_QUEUED_MESSAGES } from './dev-servers/mosquitto-config';
export { startTemporal, type TemporalServer, type TemporalOptions } from './dev-servers/temporal';
export { startPostgres, type PostgresServer, type PostgresOptions } from './dev-servers/postgres';
