import { startStack, type Stack } from '../helpers/stack';
import { createProject, registerUser } from '../helpers/fixtures';
import { connectSocket, emitWithAck, type ClientSocket } from '../helpers/socket';

const TTL_S = 3;
let stack: Stack;
const sockets: ClientSocket[] = [];

beforeAll(async () => {
  stack = await startStack({ overrides: { ACCESS_TOKEN_TTL_S: String(TTL_S) } });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await stack.stop();
});

/** Resolves with the disconnect reason and when it came, or rejects after `ms`. */
function disconnected(socket: ClientSocket, ms: number): Promise<{ reason: string; at: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still connected after ${ms} ms`)), ms);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve({ reason, at: Date.now() });
    });
  });
}

describe('a Socket.IO connection and its session', () => {
  it('is disconnected by the server when its access token expires, and that token cannot connect again', async () => {
    const login = await stack.request('POST', '/api/v1/auth/register', {
      body: { email: `expiry-${Date.now()}@example.com`, password: 'correct horse battery' },
    });
    expect(login.status).toBe(201);
    const { accessToken, expiresAt } = login.body.data as { accessToken: string; expiresAt: string };
    const project = await createProject(stack.request, { id: login.body.data.user.id, email: '', token: accessToken });

    const socket = await connectSocket(stack.baseUrl, accessToken);
    sockets.push(socket);
    const closed = disconnected(socket, TTL_S * 1000 + 3000);
    expect(await emitWithAck(socket, 'subscribe', { projectId: project.id })).toMatchObject({ success: true });

    const { reason, at } = await closed;
    expect(reason).toBe('io server disconnect');
    // Not before the session ends, and soon after.
    expect(at).toBeGreaterThanOrEqual(Date.parse(expiresAt) - 50);
    expect(at).toBeLessThan(Date.parse(expiresAt) + 1500);

    await expect(connectSocket(stack.baseUrl, accessToken)).rejects.toThrow('UNAUTHORIZED');
  });

  it('stays connected while its session lasts, on a token issued later', async () => {
    const user = await registerUser(stack.request);
    const socket = await connectSocket(stack.baseUrl, user.token);
    sockets.push(socket);
    await new Promise((resolve) => setTimeout(resolve, (TTL_S * 1000) / 2));
    expect(socket.connected).toBe(true);
    expect(await emitWithAck(socket, 'subscribe', { projectId: (await createProject(stack.request, user)).id })).toMatchObject({
      success: true,
    });
  });
});
