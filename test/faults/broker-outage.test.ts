/** The broker stopped under a gateway of its own: /readyz answers 503 naming mqtt within 2 s. */
import { ownMosquitto, stopOwnServers, type OwnServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';

let broker: OwnServer;
let stack: Stack;

beforeAll(async () => {
  broker = await ownMosquitto();
  stack = await startStack({ overrides: broker.env });
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

test('broker stopped: /readyz says mqtt is down', async () => {
  expect((await stack.request('GET', '/readyz')).status).toBe(200);
  await broker.stop();
  await eventually(async () => {
    const ready = await answerWithin(2000, 'GET /readyz', stack.request('GET', '/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body.error.details).toEqual([expect.objectContaining({ field: 'mqtt' })]);
  }, 5000);
}, 30_000);
