/**
 * Socket.IO clients watching the project through the balancer, each keeping the live view of
 * docs/realtime.md (common/live-view.ts): on every (re)connection subscribe, then resync the
 * project; on a gap, resync the device. The balancer names the node of each connection
 * (`X-DDS-Node` on the WebSocket upgrade, deploy/haproxy.cfg), so a client moved to another node
 * is seen. What counts: a gap once a connection is live (subscribed and resynced), and a view
 * that differs from the server's at the end.
 */
import type { IncomingMessage } from 'node:http';
import { NodeWebSocket } from 'engine.io-client';
import { io, type Socket } from 'socket.io-client';
import type { Ack, ClientToServerEvents, DeviceSnapshotEvent, ServerToClientEvents } from '../../../common/contracts';
import { LiveView } from '../../../common/live-view';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** The WebSocket transport, remembering which node the balancer sent the upgrade to. */
class TracedWebSocket extends NodeWebSocket {
  servedBy = '?';

  override createSocket(uri: string, protocols: string | string[] | undefined, opts: Record<string, unknown>): unknown {
    const ws = super.createSocket(uri, protocols, opts) as { on(event: 'upgrade', listener: (res: IncomingMessage) => void): void };
    ws.on('upgrade', (res) => {
      this.servedBy = String(res.headers['x-dds-node'] ?? '?');
    });
    return ws;
  }
}

export interface WatcherReport {
  name: string;
  /**
   * Each connection in order: the node the balancer sent it to, and the gaps it saw once live
   * (after its subscribe and resync), each a missed event. A connection after the first is a move:
   * its node was killed, cut off or left rotation.
   */
  connections: Array<{ node: string; liveGaps: number }>;
  /** Gaps between a (re)connection and its resync: expected, covered by the resync. */
  syncGaps: number;
  events: number;
  notifications: number;
  /** Devices whose view differs from the server's snapshot at the end (seq or a pin value). */
  stale: string[];
}

function emitAck<T>(socket: ClientSocket, event: 'subscribe' | 'resync', payload: unknown, ms = 5000): Promise<Ack<T>> {
  return socket.timeout(ms).emitWithAck(event as 'subscribe', payload) as unknown as Promise<Ack<T>>;
}

export class Watcher {
  private readonly view = new LiveView();
  private readonly socket: ClientSocket;
  private live = false;
  private readonly report: WatcherReport;

  constructor(
    name: string,
    baseUrl: string,
    token: string,
    private readonly projectId: string,
  ) {
    this.report = { name, connections: [], syncGaps: 0, events: 0, notifications: 0, stale: [] };
    this.socket = io(baseUrl, {
      path: '/socket.io',
      auth: { token },
      transports: [TracedWebSocket],
      reconnectionDelay: 500,
      reconnectionDelayMax: 2000,
      timeout: 5000,
    });
    this.socket.on('connect', () => void this.synced());
    this.socket.on('disconnect', () => (this.live = false));
    const sequenced = (deviceId: string, seq: number | undefined, apply: Parameters<LiveView['event']>[2]): void => {
      this.report.events++;
      if (this.view.event(deviceId, seq, apply) !== 'gap') return;
      const current = this.report.connections.at(-1);
      if (this.live && current) current.liveGaps++;
      else this.report.syncGaps++;
      void emitAck<{ devices: DeviceSnapshotEvent[] }>(this.socket, 'resync', { deviceId }).then(
        (ack) => ack.success && ack.devices.forEach((d) => this.view.snapshot(d)),
        () => undefined,
      );
    };
    this.socket.on('pin:update', (e) =>
      sequenced(e.deviceId, e.seq, (v) => void (v.pins[e.pin] = { value: e.value, updatedAt: e.updatedAt })),
    );
    this.socket.on('device:status', (e) => sequenced(e.deviceId, e.seq, (v) => ((v.status = e.status), (v.lastSeen = e.lastSeen))));
    this.socket.on('alarm', (e) => sequenced(e.deviceId, e.seq, () => undefined));
    this.socket.on('command', (e) => sequenced(e.deviceId, e.seq, () => undefined));
    this.socket.on('notification', () => void this.report.notifications++);
  }

  private get node(): string {
    return (this.socket.io.engine?.transport as unknown as TracedWebSocket | undefined)?.servedBy ?? '?';
  }

  /** Subscribe, then resync the project: the view is whole again and the connection is live. */
  private async synced(): Promise<void> {
    this.report.connections.push({ node: this.node, liveGaps: 0 });
    for (let attempt = 0; attempt < 10 && this.socket.connected; attempt++) {
      try {
        const sub = await emitAck<{ seq: Record<string, number> }>(this.socket, 'subscribe', { projectId: this.projectId });
        if (!sub.success) throw new Error(sub.error.code);
        this.view.subscribed(sub.seq);
        const sync = await emitAck<{ devices: DeviceSnapshotEvent[] }>(this.socket, 'resync', { projectId: this.projectId });
        if (!sync.success) throw new Error(sync.error.code);
        sync.devices.forEach((d) => this.view.snapshot(d));
        this.live = true;
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** The node of its current connection (the balancer's X-DDS-Node), or null while disconnected. */
  get currentNode(): string | null {
    return this.socket.connected ? this.node : null;
  }

  get isLive(): boolean {
    return this.live;
  }

  /** At the end: the server's snapshot of every device against this client's view. */
  async finish(): Promise<WatcherReport> {
    const stale: string[] = [];
    try {
      const sync = await emitAck<{ devices: DeviceSnapshotEvent[] }>(this.socket, 'resync', { projectId: this.projectId }, 10_000);
      if (!sync.success) throw new Error(sync.error.code);
      for (const server of sync.devices) {
        const mine = this.view.devices.get(server.deviceId);
        const pinsDiffer = Object.entries(server.pins).some(([pin, p]) => mine?.pins[pin]?.value !== p.value);
        if (!mine || mine.seq !== server.seq || pinsDiffer) {
          stale.push(`${server.deviceId.slice(0, 8)} seq ${mine?.seq ?? 0}/${server.seq}${pinsDiffer ? ' pins differ' : ''}`);
        }
      }
    } catch (e) {
      stale.push(`final resync failed: ${(e as Error).message}`);
    }
    this.socket.close();
    return { ...this.report, stale };
  }
}
