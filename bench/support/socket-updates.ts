import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, PinUpdateEvent, ServerToClientEvents } from '../../common/contracts';
import type { Sample } from './stats';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface UpdateWatcher {
  /** Publish → receipt of each `pin:update` event whose value is a send time. */
  samples: Sample[];
  close(): void;
}

/** One Socket.IO client subscribed to a project, timing each `pin:update` against the send time in its value. */
export async function watchProjectUpdates(baseUrl: string, token: string, projectId: string): Promise<UpdateWatcher> {
  const socket: ClientSocket = io(baseUrl, {
    path: '/socket.io',
    auth: { token },
    transports: ['websocket'],
    reconnection: false,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', { projectId });
  if (!ack.success) {
    socket.close();
    throw new Error(`subscribe refused: ${ack.error.code} ${ack.error.message}`);
  }
  const samples: Sample[] = [];
  socket.on('pin:update', (event: PinUpdateEvent) => {
    const sentAt = Number(event.value);
    if (Number.isFinite(sentAt)) samples.push({ sentAt, latency: Date.now() - sentAt });
  });
  return { samples, close: () => void socket.close() };
}
