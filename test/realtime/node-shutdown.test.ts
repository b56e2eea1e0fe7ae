/**
 * A gateway node that stops (SIGTERM: a rolling upgrade, a scale-down) closes its Socket.IO
 * connections so that clients reconnect by themselves (through the balancer, to a node still up),
 * not with the server-chosen disconnect a client does not retry (docs/realtime.md). The cluster
 * harness's rolling upgrade found every watcher of a replaced node left disconnected for good.
 */
import { createProject, registerUser } from '../helpers/fixtures';
import { connectSocket, emitWithAck } from '../helpers/socket';
import { startStack } from '../helpers/stack';

test('a stopping node closes its Socket.IO connections as a transport close, which clients retry', async () => {
  const stack = await startStack();
  const user = await registerUser(stack.request);
  const socket = await connectSocket(stack.baseUrl, user.token);
  try {
    expect(await emitWithAck(socket, 'subscribe', { projectId: (await createProject(stack.request, user)).id })).toMatchObject({
      success: true,
    });
    const closed = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    await stack.stop();
    expect(await closed).toBe('transport close');
  } finally {
    socket.close();
  }
});
