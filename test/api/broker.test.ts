/**
 * GET /api/v1/broker tells the console where devices connect: the public broker address when the
 * deployment sets one (PUBLIC_MQTT_URL), else the node's own MQTT_URL, and the topic root.
 */
import { registerUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

const stacks: Stack[] = [];
afterAll(async () => {
  await Promise.all(stacks.map((s) => s.stop()));
});

test("without PUBLIC_MQTT_URL it is the node's broker address and topic root; it needs a login", async () => {
  const stack = await startStack();
  stacks.push(stack);
  const user = await registerUser(stack.request);
  expect((await stack.request('GET', '/api/v1/broker')).status).toBe(401);
  const res = await stack.request('GET', '/api/v1/broker', { token: user.token });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ mqttUrl: stack.config.MQTT_URL.replace(/\/$/, ''), topicRoot: stack.config.MQTT_TOPIC_ROOT });
}, 60_000);

test('PUBLIC_MQTT_URL is shown instead, without any user or password in it', async () => {
  const stack = await startStack({ overrides: { PUBLIC_MQTT_URL: 'mqtts://ops:secret@iot.example.com:8883' } });
  stacks.push(stack);
  const user = await registerUser(stack.request);
  const res = await stack.request('GET', '/api/v1/broker', { token: user.token });
  expect(res.body.data).toEqual({ mqttUrl: 'mqtts://iot.example.com:8883', topicRoot: stack.config.MQTT_TOPIC_ROOT });
}, 60_000);
