import { parseArgs } from 'node:util';
import { z } from 'zod';
import { INFO_FIELD_MAX_LENGTH } from '../../common/device-info';
import { parseSemVer } from '../../common/semver';

/** The simulator's settings; flags win over the environment (DDS_EMAIL, DDS_PASSWORD, ...). */
export const simulateOptions = z
  .object({
    devices: z.coerce.number().int().min(1).max(1000).default(5),
    /** Values each device publishes per second (across its pins). */
    rate: z.coerce.number().positive().max(100).default(1),
    url: z.url().default('http://localhost:3000'),
    mqttUrl: z.url().default('mqtt://localhost:1883'),
    /**
     * The CA certificate (PEM file) the broker's certificate must verify against, for an mqtts:// or
     * wss:// broker; without it the system's trusted CAs. A server that does not verify is refused.
     */
    ca: z.string().min(1).optional(),
    topicRoot: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('dds'),
    email: z.email({ error: 'an account email is required: --email or DDS_EMAIL' }),
    password: z.string({ error: 'a password is required: --password or DDS_PASSWORD' }).min(8, 'at least 8 characters'),
    /** A project of the account, by id or by name; a name that is not there yet is created. */
    project: z.string().trim().min(1).max(100).default('Simulator'),
    /** Devices of the project to run, by name (existing ones are joined, missing ones created); else sim-001 … sim-NNN. */
    deviceNames: z.array(z.string().trim().min(1).max(100)).max(1000).default([]),
    /** A template of the project, by id or name: devices made get it, and every device reports on its pins. */
    template: z.string().trim().min(1).max(100).optional(),
    /** The firmware version the devices start on (their `info`): a semantic version, so a job's `firmwareVersionLt` can target them. */
    firmware: z
      .string()
      .trim()
      .max(INFO_FIELD_MAX_LENGTH)
      .refine((v) => parseSemVer(v) !== null, 'a semantic version, such as 1.0.0')
      .default('1.0.0'),
    /** The share of devices (0 to 1) whose OTA updates fail (ota.ts failsUpdate: the same devices on every run). */
    otaFail: z.coerce.number().min(0).max(1).default(0),
    /** Stop by itself after this many seconds (default: run until Ctrl-C). */
    duration: z.coerce.number().positive().optional(),
  })
  // A CA with a plain broker URL would be ignored, and the token sent in clear text to one thought verified.
  .refine((o) => !o.ca || /^(mqtts|wss):$/.test(new URL(o.mqttUrl).protocol), {
    path: ['ca'],
    message: 'the broker URL is not TLS: give an mqtts:// (or wss://) --mqtt-url with it',
  });

export type SimulateOptions = z.infer<typeof simulateOptions>;

const flags = {
  devices: { type: 'string' },
  rate: { type: 'string' },
  url: { type: 'string' },
  'mqtt-url': { type: 'string' },
  ca: { type: 'string' },
  'topic-root': { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  project: { type: 'string' },
  'device-name': { type: 'string', multiple: true },
  template: { type: 'string' },
  firmware: { type: 'string' },
  'ota-fail': { type: 'string' },
  duration: { type: 'string' },
} as const;

export class OptionsError extends Error {}

/** Where a local `npm start` listens (scripts/local-endpoints.ts): the last fallback for the URLs. */
export interface EndpointDefaults {
  url?: string;
  mqttUrl?: string;
  /** The CA file of npm start's own TLS listener (MQTT_TLS=1). */
  caFile?: string;
  topicRoot?: string;
}

/**
 * Reads `--devices 20 --rate 2 ...`, then the environment, then `local` (a running `npm start`);
 * throws an OptionsError naming each bad one.
 */
export function readOptions(argv: string[], env: NodeJS.ProcessEnv, local: EndpointDefaults = {}): SimulateOptions {
  let values: Partial<Record<Exclude<keyof typeof flags, 'device-name'>, string>> & { 'device-name'?: string[] };
  try {
    values = parseArgs({ args: argv, options: flags, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new OptionsError(err instanceof Error ? err.message : String(err));
  }
  if (values.devices !== undefined && values['device-name'] !== undefined) {
    throw new OptionsError('--devices and --device-name: give one (the names say how many devices run)');
  }
  const mqttUrl = values['mqtt-url'] ?? env.DDS_MQTT_URL;
  const parsed = simulateOptions.safeParse({
    devices: values.devices,
    rate: values.rate,
    url: values.url ?? env.DDS_URL ?? local.url,
    mqttUrl: mqttUrl ?? local.mqttUrl,
    // npm start's CA goes with npm start's broker only.
    ca: values.ca ?? env.DDS_MQTT_CA ?? (mqttUrl === undefined ? local.caFile : undefined),
    topicRoot: values['topic-root'] ?? env.MQTT_TOPIC_ROOT ?? local.topicRoot,
    email: values.email ?? env.DDS_EMAIL,
    password: values.password ?? env.DDS_PASSWORD,
    project: values.project,
    deviceNames: values['device-name'],
    template: values.template,
    firmware: values.firmware,
    otaFail: values['ota-fail'],
    duration: values.duration,
  });
  if (!parsed.success) {
    throw new OptionsError(
      parsed.error.issues.map((i) => `--${String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${i.message}`).join('\n'),
    );
  }
  return parsed.data;
}
