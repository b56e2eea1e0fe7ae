import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { connectSocket, type ClientSocket } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const text = async (): Promise<string> => (await fetch(stack.metricsUrl)).text();

describe('GET /metrics on the metrics port', () => {
  it('exposes the process defaults and every dds series', async () => {
    await stack.request('GET', '/healthz');
    const body = await text();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'dds_http_request_duration_seconds_bucket',
      'dds_ingest_values_total',
      'dds_ingest_duration_seconds',
      'dds_mqtt_messages_total',
      'dds_mqtt_values_dropped_total',
      'dds_mqtt_in_flight',
      'dds_mqtt_lag_seconds',
      'dds_mqtt_queue_lag_seconds',
      'dds_mqtt_queue_drops_total',
      'dds_socketio_connections',
      'dds_twin_calls_total',
      'dds_history_backlog',
      'dds_history_lag_seconds',
    ]) {
      expect(body).toMatch(new RegExp(`^# TYPE ${name.replace(/_bucket$/, '')} `, 'm'));
    }
  });

  it('is not served on the public API port', async () => {
    const res = await stack.request('GET', '/metrics');
    expect(res.status).toBe(404);
  });

  it('labels HTTP requests with the route template and status, never the raw path', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    expect((await stack.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token })).status).toBe(200);
    expect((await stack.request('GET', `/api/v1/devices/${device.id}`)).status).toBe(401);
    const count = async (status: number) =>
      (await stack.metrics())[`dds_http_request_duration_seconds_count{method="GET",route="/api/v1/devices/:deviceId",status="${status}"}`];
    await eventually(async () => expect(await count(200)).toBeGreaterThanOrEqual(1));
    await eventually(async () => expect(await count(401)).toBeGreaterThanOrEqual(1));
    expect(await text()).not.toContain(device.id);
  });

  it('counts an MQTT value as stored through the mqtt door and a signal to its twin', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const stored = 'dds_ingest_values_total{door="mqtt",outcome="stored"}';
    const before = (await stack.metrics())[stored] ?? 0;
    const client = await connectAsDevice(stack.config.MQTT_URL, device);
    try {
      await client.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V1`, '21.5', { qos: 1 });
      await eventually(async () => expect((await stack.metrics())[stored]).toBe(before + 1));
      await eventually(async () =>
        expect((await stack.metrics())['dds_twin_calls_total{kind="signal",name="activity",outcome="sent"}']).toBeGreaterThanOrEqual(1),
      );
      expect((await stack.metrics())['dds_ingest_duration_seconds_count{door="mqtt"}']).toBeGreaterThanOrEqual(1);
    } finally {
      await client.endAsync();
    }
  });

  it('counts a rejected value by its door and code', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const tooLarge = 'dds_ingest_values_total{door="data",outcome="VALUE_TOO_LARGE"}';
    const before = (await stack.metrics())[tooLarge] ?? 0;
    const res = await stack.request('POST', `/api/v1/data/${device.id}/6`, { token: owner.token, body: { value: 'x'.repeat(1025) } });
    expect(res.status).toBe(400);
    expect((await stack.metrics())[tooLarge]).toBe(before + 1);
  });

  it('gauges the Socket.IO connections of the node', async () => {
    const socket: ClientSocket = await connectSocket(stack.baseUrl, owner.token);
    try {
      await eventually(async () => expect((await stack.metrics()).dds_socketio_connections).toBe(1));
    } finally {
      socket.close();
    }
    await eventually(async () => expect((await stack.metrics()).dds_socketio_connections).toBe(0));
  });
});
