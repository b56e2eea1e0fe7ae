import { randomUUID } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';
import { withDeadline } from '../../common/deadline';
import type { Logger } from '../../common/logger';

const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';

export type DynsecCommand = { command: string } & Record<string, unknown>;

/** The plugin's answer to one command: `error` is its own message, e.g. `Client not found`. */
export interface DynsecResponse {
  command: string;
  error?: string;
  data?: unknown;
}

/** A command the plugin answered with an error; `reason` is the plugin's error string. */
export class DynsecCommandError extends Error {
  constructor(
    readonly command: string,
    readonly reason: string,
  ) {
    super(`dynamic security ${command}: ${reason}`);
    this.name = 'DynsecCommandError';
  }
}

/** The plugin could not be asked or did not answer: not connected, connection lost, or timed out. */
export class DynsecUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DynsecUnavailableError';
  }
}

/**
 * The commands were sent but no answer came (timed out, or the connection dropped first): the
 * plugin may have applied them, or may still apply them (a frozen broker reads them when it wakes).
 */
export class DynsecUnconfirmedError extends DynsecUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'DynsecUnconfirmedError';
  }
}

export interface DynsecClientOptions {
  url: string;
  username: string;
  password: string;
  logger: Logger;
  /** How long a command waits for the plugin's answer (default 1.5 s), so a hung broker is a fast 503. */
  timeoutMs?: number;
  /** The plugin's control topic: dynamic security's by default; the device plugin's speaks the same protocol. */
  controlTopic?: string;
}

export interface DynsecClient {
  /**
   * Sends the commands in one message; resolves with one response per command, in order, whether or
   * not the plugin reported errors (see `throwOnError`). Concurrent calls are told apart by the
   * correlationData each command carries. Rejects with DynsecUnavailableError when nothing was sent
   * (not connected), DynsecUnconfirmedError when the message went out and no answer came.
   */
  send(commands: DynsecCommand[]): Promise<DynsecResponse[]>;
  close(): Promise<void>;
}

/** Throws a DynsecCommandError for the first response whose error is not one of `tolerated`. */
export function throwOnError(responses: DynsecResponse[], tolerated: readonly string[] = []): void {
  const failed = responses.find((r) => r.error !== undefined && !tolerated.includes(r.error));
  if (failed?.error !== undefined) throw new DynsecCommandError(failed.command, failed.error);
}

interface Pending {
  resolve(response: DynsecResponse): void;
  reject(error: Error): void;
}

interface WireResponse extends DynsecResponse {
  correlationData?: string;
}

function parseResponses(payload: Buffer): WireResponse[] {
  const parsed: unknown = JSON.parse(payload.toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || !('responses' in parsed) || !Array.isArray(parsed.responses)) {
    return [];
  }
  return parsed.responses.filter(
    (r: unknown): r is WireResponse => typeof r === 'object' && r !== null && 'command' in r && typeof r.command === 'string',
  );
}

/**
 * A request/response client for Mosquitto's dynamic security plugin over its own MQTT 5
 * connection as the plugin's admin. Rejects at once when the broker refuses the admin; afterwards
 * it reconnects on its own, and calls made while it is offline fail fast.
 */
export async function connectDynsecClient(options: DynsecClientOptions): Promise<DynsecClient> {
  const timeoutMs = options.timeoutMs ?? 1500;
  const controlTopic = options.controlTopic ?? DYNSEC_TOPIC;
  const responseTopic = `${controlTopic}/response`;
  const prefix = randomUUID();
  const pending = new Map<string, Pending>();
  let sequence = 0;

  const mqtt: MqttClient = await connectAsync(
    options.url,
    {
      protocolVersion: 5,
      clientId: `dds-dynsec-${prefix.slice(0, 8)}`,
      username: options.username,
      password: options.password,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 5000,
      queueQoSZero: false,
    },
    false,
  );

  const failAll = (error: Error) => {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
  };

  mqtt.on('message', (topic, payload) => {
    if (topic !== responseTopic) return;
    let responses: WireResponse[];
    try {
      responses = parseResponses(payload);
    } catch (err) {
      options.logger.warn({ err }, 'unreadable dynamic security response');
      return;
    }
    for (const { correlationData, ...response } of responses) {
      if (correlationData === undefined) continue;
      pending.get(correlationData)?.resolve(response);
      pending.delete(correlationData);
    }
  });
  mqtt.on('close', () => {
    failAll(new DynsecUnavailableError('connection to the broker lost before the plugin answered'));
  });
  mqtt.on('error', (err) => options.logger.warn({ err: err.message }, 'dynamic security connection error'));

  try {
    await mqtt.subscribeAsync(responseTopic, { qos: 0 });
  } catch (err) {
    await mqtt.endAsync(true);
    throw err;
  }

  const answerTo = (id: string): Promise<DynsecResponse> => new Promise((resolve, reject) => pending.set(id, { resolve, reject }));

  async function send(commands: DynsecCommand[]): Promise<DynsecResponse[]> {
    if (!mqtt.connected) throw new DynsecUnavailableError('not connected to the broker');
    const tagged = commands.map((command) => ({ ...command, correlationData: `${prefix}:${++sequence}` }));
    const answers = Promise.all(tagged.map((c) => answerTo(c.correlationData)));
    answers.catch(() => undefined);
    const published = mqtt.publishAsync(controlTopic, JSON.stringify({ commands: tagged }), { qos: 1 }).catch((err: Error) => {
      throw new DynsecUnavailableError(`publishing to ${controlTopic} failed: ${err.message}`);
    });
    try {
      return await withDeadline(
        published.then(() => answers),
        timeoutMs,
        () => new DynsecUnavailableError(`no answer from the plugin within ${timeoutMs} ms`),
      );
    } catch (err) {
      throw err instanceof DynsecUnavailableError ? new DynsecUnconfirmedError(err.message) : err;
    } finally {
      for (const c of tagged) pending.delete(c.correlationData);
    }
  }

  return {
    send,
    async close() {
      failAll(new DynsecUnavailableError('dynamic security client closed'));
      await mqtt.endAsync();
    },
  };
}
