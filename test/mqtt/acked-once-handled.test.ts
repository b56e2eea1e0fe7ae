import { randomBytes } from 'node:crypto';
import type { Config } from '../../common/config';
import { createMqttClient, createMqttSessionClient, mqttConnected, type MqttClient } from '../../common/mqtt';
import { ackOnceHandled } from '../../gateway/mqtt/acked-once-handled';
import { testConfig } from '../harness/config';
import { eventually } from '../helpers/wait';

const root = `acks-${randomBytes(4).toString('hex')}`;
const config: Config = testConfig({ MQTT_TOPIC_ROOT: root });
const topic = `${root}/values`;

let publisher: MqttClient;
const opened: MqttClient[] = [];
/** PUBACKs the module could not write: none in these tests. */
const writeErrors: unknown[] = [];

/** A handler whose results the test gives, one message at a time, and the log of what happened in which order. */
function heldHandler() {
  const log: string[] = [];
  const results = new Map<string, (ok: boolean) => void>();
  const handle = (packet: { payload: Buffer | string }): Promise<boolean> => {
    const value = String(packet.payload);
    log.push(`take ${value}`);
    return new Promise((resolve) => results.set(value, resolve));
  };
  const finish = (value: string, ok: boolean): void => {
    log.push(`${ok ? 'stored' : 'failed'} ${value}`);
    const resolve = results.get(value);
    if (!resolve) throw new Error(`${value} was not taken`);
    resolve(ok);
  };
  return { log, handle, finish, taken: () => log.filter((l) => l.startsWith('take ')).map((l) => l.slice(5)) };
}

/** A persistent session on `topic` whose messages go through ackOnceHandled. */
async function session(
  clientId: string,
  limit: number,
  handle: (packet: { payload: Buffer | string }) => Promise<boolean>,
  receiveMaximum?: number,
): Promise<MqttClient> {
  const client = createMqttSessionClient(config, clientId, receiveMaximum);
  opened.push(client);
  client.handleMessage = ackOnceHandled(client, limit, handle, (err) => writeErrors.push(err));
  await mqttConnected(client);
  await client.subscribeAsync(topic, { qos: 1 });
  return client;
}

/**
 * Publishes a value and waits until the handler takes it: by then every acknowledgement due for
 * what was handled before has left. The fence itself stays unhandled.
 */
async function fence(handler: ReturnType<typeof heldHandler>): Promise<void> {
  await publish('fence');
  await eventually(() => expect(handler.taken()).toContain('fence'));
}

/** Drops the connection without a DISCONNECT, takes the session back, and returns what the broker sent again, in order. */
async function redelivered(client: MqttClient, clientId: string): Promise<string[]> {
  await client.endAsync(true);
  const again = heldHandler();
  await session(clientId, 8, again.handle);
  await publish('after');
  await eventually(() => expect(again.taken()).toContain('after'));
  return again.taken().slice(0, -1);
}

const publish = (...values: string[]) => Promise.all(values.map((v) => publisher.publishAsync(topic, v, { qos: 1 })));

beforeAll(async () => {
  publisher = createMqttClient(config, 'acks-publisher');
  await mqttConnected(publisher);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.endAsync(true)));
  expect(writeErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await publisher.endAsync();
});

describe('ackOnceHandled: several values at once on one connection, each acknowledged once handled', () => {
  it('takes up to its limit at once and the next only when one is done', async () => {
    const held = heldHandler();
    await session(`acks-limit-${randomBytes(3).toString('hex')}`, 3, held.handle);
    await publish('a', 'b', 'c', 'd');
    await eventually(() => expect(held.taken()).toEqual(['a', 'b', 'c']));
    held.finish('b', true);
    await eventually(() => expect(held.taken()).toEqual(['a', 'b', 'c', 'd']));
    expect(held.log.indexOf('stored b')).toBeLessThan(held.log.indexOf('take d'));
    expect(held.log.slice(0, 3)).toEqual(['take a', 'take b', 'take c']);
  });

  it('acknowledges in the order received: a later value stored first waits for the one before it', async () => {
    const clientId = `acks-order-${randomBytes(3).toString('hex')}`;
    const first = heldHandler();
    const client = await session(clientId, 8, first.handle);
    await publish('a', 'b', 'c');
    await eventually(() => expect(first.taken()).toEqual(['a', 'b', 'c']));
    first.finish('b', true);
    first.finish('c', true);
    await fence(first);
    // 'a' is still being handled: nothing may have been acknowledged, so the broker sends all of them again.
    expect(await redelivered(client, clientId)).toEqual(['a', 'b', 'c', 'fence']);
  });

  it('does not acknowledge a value whose handling failed, and acknowledges the ones around it', async () => {
    const clientId = `acks-failed-${randomBytes(3).toString('hex')}`;
    const first = heldHandler();
    const client = await session(clientId, 8, first.handle);
    await publish('a', 'b', 'c');
    await eventually(() => expect(first.taken()).toEqual(['a', 'b', 'c']));
    first.finish('a', true);
    first.finish('b', false);
    first.finish('c', true);
    await fence(first);
    expect(await redelivered(client, clientId)).toEqual(['b', 'fence']);
  });
});

describe('the broker window of a session connection', () => {
  /**
   * Publishes `count` values (each acknowledged by the broker, which has then sent the subscriber
   * every one it may), then makes a round trip on the subscriber's own connection, so every
   * PUBLISH the broker wrote to it before has been handled: what was taken is what the broker sent.
   */
  async function takenUnacknowledged(receiveMaximum: number | undefined, count: number): Promise<number> {
    const held = heldHandler();
    const client = await session(`acks-window-${randomBytes(3).toString('hex')}`, count, held.handle, receiveMaximum);
    await publish(...Array.from({ length: count }, (_, i) => `v${i}`));
    await client.subscribeAsync(`${root}/fence`, { qos: 1 });
    return held.taken().length;
  }

  it('is the receive maximum the connection asks for (MQTT_INGEST_IN_FLIGHT), above the broker default', async () => {
    expect(await takenUnacknowledged(32, 40)).toBe(32);
  });

  it("is the broker's default (Mosquitto max_inflight_messages, 20) when the connection asks for none", async () => {
    expect(await takenUnacknowledged(undefined, 40)).toBe(20);
  });
});
