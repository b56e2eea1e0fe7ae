import { hostname } from 'node:os';
import { z } from 'zod';
import { deviceRateEnvShape } from './device-rate';
import { managementRateEnvShape } from './management-rate';
import { planSchema } from './plans';
import { quotaEnvShape } from './quotas';

/**
 * TRUST_PROXY: the proxies in front of a node, a hop count (docs/operations.md "Client address").
 * `false` (the old spelling of no proxy) reads as 0; `true` is refused: it trusted every hop, so the
 * client's own (forged) X-Forwarded-For chose the address the throttles count.
 */
const hopCount = z
  .string()
  .refine(
    (v) => v !== 'true',
    'a hop count now: 0 without a proxy, 1 behind one (e.g. haproxy); `true` trusted every hop, so a forged X-Forwarded-For chose the client address',
  )
  .transform((v) => (v === 'false' ? '0' : v))
  .pipe(z.string().regex(/^\d{1,2}$/, 'a hop count: 0 without a proxy, else the number of proxies in front of the node'))
  .transform(Number);

/** NOTIFICATION_RETENTION_DAYS when unset; also the stores' own default. */
export const NOTIFICATION_RETENTION_DAYS_DEFAULT = 90;

/** Every setting the service reads, validated once at start. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Prometheus scrape port (GET /metrics), kept off the public port (docs/operations.md). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  /**
   * Redis Cluster seeds, `host:port` comma-separated; when set, every connection is an ioredis
   * Cluster found from them and REDIS_URL is not used (docs/architecture.md "Redis Cluster").
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((seed) => seed.trim())
        .filter((seed) => seed !== ''),
    )
    .pipe(
      z
        .array(z.string().regex(/^[A-Za-z0-9_.:[\]-]+:\d{1,5}$/, 'host:port'))
        .min(1, 'at least one host:port')
        .transform((seeds) =>
          seeds.map((seed) => {
            const at = seed.lastIndexOf(':');
            return { host: seed.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(seed.slice(at + 1)) };
          }),
        ),
    )
    .optional(),
  MQTT_URL: z.url().default('mqtt://127.0.0.1:1883'),
  /**
   * The broker address devices use, shown in the console's connect panel (GET /api/v1/broker) when it
   * differs from MQTT_URL, the address this node uses (a deployment behind another host name, TLS).
   */
  PUBLIC_MQTT_URL: z.url({ protocol: /^(mqtts?|wss?)$/, error: 'an mqtt://, mqtts://, ws:// or wss:// URL' }).optional(),
  /** PostgreSQL for pin history (docs/operations.md); `npm start` starts a private cluster when unset. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'a postgres:// or postgresql:// URL' }).optional(),
  MQTT_USERNAME: z.string().optional(),
  MQTT_PASSWORD: z.string().optional(),
  MQTT_TOPIC_ROOT: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('dds'),
  /** This node's stable name: its broker sessions are `dds-gw-{NODE_ID}-{n}`, so a restarted node takes back what was in flight. */
  NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, '1-64 letters, digits, _ . and - only')
    .default(
      hostname()
        .replace(/[^A-Za-z0-9_.-]/g, '-')
        .slice(0, 64) || 'gateway',
    ),
  /** Device-value connections per node: each acknowledges a value once it is stored. */
  MQTT_INGEST_CONNECTIONS: z.coerce.number().int().min(1).max(64).default(8),
  /** Values each of those connections handles at once (gateway/mqtt/acked-once-handled.ts), and its MQTT 5 Receive Maximum: what the broker may send it unacknowledged. */
  MQTT_INGEST_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(20),
  /** How long a device value over MQTT waits for others to be stored together with it (gateway/mqtt/shared-beat.ts). */
  INGEST_LINGER_MS: z.coerce.number().int().min(0).max(100).default(5),
  /**
   * A device within its plan's value rate may send this many seconds' worth at once (DESIGN §11,
   * docs/limits.md): what it buffered through an outage or its own offline time, when it comes back.
   */
  DEVICE_VALUES_BURST_S: z.coerce.number().min(1).max(86_400).default(120),
  /** A threshold rule notifies about one device at most once in this many seconds (DESIGN §11: 60; 0: every crossing). */
  THRESHOLD_NOTIFY_INTERVAL_S: z.coerce.number().int().min(0).max(86_400).default(60),
  /** The largest MQTT packet the service takes or sends (MQTT 5 Maximum Packet Size); the broker configs refuse larger ones too (docs/limits.md). */
  MQTT_MAX_PACKET_BYTES: z.coerce.number().int().min(4096).max(268_435_455).default(65_536),
  /** How long the broker keeps a node's sessions (and queues its share of values) while the node is down. */
  MQTT_SESSION_EXPIRY_S: z.coerce.number().int().min(0).max(4_294_967_295).default(86_400),
  MQTT_DYNSEC_USERNAME: z.string().optional(),
  MQTT_DYNSEC_PASSWORD: z.string().optional(),
  /** How devices log in (docs/broker-credentials.md): the broker's device plugin reading Redis, or an account each in dynamic security. */
  MQTT_DEVICE_AUTH: z.enum(['plugin', 'dynsec']).default('plugin'),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Names the outbox and history streams too; no braces, so their shard's hash tag is the only one (docs/architecture.md "Redis Cluster"). */
  TEMPORAL_TASK_QUEUE: z
    .string()
    .regex(/^[^{}]+$/, 'at least one character, no { or }')
    .default('device-twins'),
  TEMPORAL_CLI_PATH: z.string().optional(),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().positive().optional(),
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().default(100),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().positive().default(100),
  DEVICE_HEARTBEAT_TIMEOUT_S: z.coerce.number().positive().default(60),
  /** `twin-online` intents a gateway node has in flight, from read to confirmed by the twin (gateway/outbox/relays.ts). */
  ONLINE_RELAY_SLOTS: z.coerce.number().int().positive().default(32),
  HISTORY_RETENTION_DAYS: z.coerce.number().positive().default(30),
  /**
   * Points written and not yet persisted to PostgreSQL that the history stream holds before ingest
   * refuses writes (503 naming postgres, no MQTT ack): the outage a node rides out (docs/operations.md).
   */
  HISTORY_STREAM_MAX: z.coerce.number().int().positive().default(1_000_000),
  /**
   * The beat a history persister waits for after a read that carried only a trickle of points:
   * every shard reads on it, so PostgreSQL gets one statement per node per beat instead of one per
   * point or two; a history read after a write waits up to this much longer
   * (gateway/history/persister.ts, point-writer.ts).
   */
  HISTORY_LINGER_MS: z.coerce.number().int().min(0).max(5_000).default(100),
  DEFAULT_PLAN: planSchema.default('free'),
  ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  CREDENTIAL_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)')
    .optional(),
  ACCESS_TOKEN_TTL_S: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600),
  /** scrypt's cost N (common/credentials.ts): node's scrypt takes only a power of two, so anything else would fail every register and login. */
  PASSWORD_HASH_COST: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1048576)
    .refine((n) => (n & (n - 1)) === 0, 'a power of two (scrypt cost N), e.g. 16384')
    .default(16384),
  TRUST_PROXY: hopCount.default(0),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().min(3).default('Device Data Service <notifications@dds.local>'),
  /** Notification emails one account (the owner of the rule's project) may cause per UTC day (docs/limits.md "Email"). */
  EMAIL_DAILY_CAP_PER_ACCOUNT: z.coerce.number().int().min(1).default(100),
  /** The largest firmware image an upload may carry (docs/jobs.md). */
  FIRMWARE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(32 * 1024 * 1024),
  /** The console's address, for the link of a verify email; the request's own origin when unset. */
  PUBLIC_URL: z.url().optional(),
  /** How long notification records and their index entries are kept (docs/limits.md "Notifications"). */
  NOTIFICATION_RETENTION_DAYS: z.coerce.number().positive().default(NOTIFICATION_RETENTION_DAYS_DEFAULT),
  PUSH_WEBHOOK_URL: z.url().optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().default(10000),
  RATE_LIMIT_MULTIPLIER: z.coerce.number().positive().default(1),
  /** Wrong passwords one account may take per window before login answers 429 (docs/api.md). */
  LOGIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(10),
  /** Wrong passwords one client address may send per window before login answers 429. */
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  LOGIN_FAILURE_WINDOW_S: z.coerce.number().int().min(1).max(86_400).default(900),
  /** Registrations one client address may make per window before register answers 429 (docs/limits.md). */
  REGISTER_MAX_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  REGISTER_WINDOW_S: z.coerce.number().int().min(1).max(86_400).default(3600),
  /** Refused provisioning attempts (a wrong or disabled key) one client address may make per window before 429 (docs/limits.md). */
  PROVISION_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  PROVISION_FAILURE_WINDOW_S: z.coerce.number().int().min(1).max(86_400).default(900),
  /** Management requests per user and minute by plan, `QUOTA_<PLAN>_MANAGEMENT_PER_MIN` (common/management-rate.ts). */
  ...managementRateEnvShape,
  ...deviceRateEnvShape,
  /** Plan quotas, `QUOTA_<PLAN>_<RESOURCE>` (common/quotas.ts, docs/limits.md "Quotas"). */
  ...quotaEnvShape,
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads the configuration from an environment; throws a ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}
