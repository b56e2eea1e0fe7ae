/**
 * The app's side: every command reached a final state (acknowledged, superseded or expired:
 * docs/commands.md), and every Socket.IO client, moved to another node, saw no gap once its
 * connection was live again (subscribed and resynced), and ended with the server's view.
 */
import type { Command } from '../../../common/contracts';
import type { Api } from '../load/api';
import type { WriteRecord } from '../load/app';
import type { WatcherReport } from '../load/watchers';
import { sleep } from '../wait';
import type { Row } from './row';

const FINAL = new Set(['acknowledged', 'superseded', 'expired']);

/** Each command's state, read until every one is final or `capMs` passed. */
export async function settleCommands(api: Api, writes: WriteRecord[], capMs = 30_000): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  const ids = writes.flatMap((w) => (w.commandId ? [w.commandId] : []));
  const deadline = Date.now() + capMs;
  for (;;) {
    const open = ids.filter((id) => !FINAL.has(states.get(id) ?? ''));
    for (const id of open) {
      const answer = await api.call<Command>('GET', `/commands/${id}`).catch(() => null);
      if (answer?.status === 200 && answer.body?.data) states.set(id, answer.body.data.state);
      else if (answer?.status === 404) states.set(id, 'not found');
    }
    if (ids.every((id) => FINAL.has(states.get(id) ?? '')) || Date.now() > deadline) return states;
    await sleep(2000);
  }
}

function tally(items: string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts.entries()].map(([k, n]) => `${k} ${n}`).join(', ');
}

/** When the writes were made, relative to the fault: `+1.2 s … +9.8 s`. */
function when(writes: WriteRecord[], faultAt: number): string {
  const offsets = writes.map((w) => (w.at - faultAt) / 1000);
  const fmt = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)} s`;
  return `${fmt(Math.min(...offsets))} … ${fmt(Math.max(...offsets))} from the fault`;
}

function answerOf(w: WriteRecord): string {
  if (w.status === 'error') return `no answer (${w.detail ?? '?'})`;
  // No JSON error body: haproxy's own answer (502: the node died mid-request; 503: no node in rotation).
  if (w.status >= 500 && !w.detail) return `${w.status} from the balancer`;
  return `${w.status}${w.detail ? ` ${w.detail}` : ''}`;
}

export function commandRows(writes: WriteRecord[], states: Map<string, string>, faultAt: number): Row[] {
  const answers = tally(writes.map(answerOf));
  const withId = writes.filter((w) => w.commandId);
  const finalStates = tally(withId.map((w) => states.get(w.commandId as string) ?? 'unread'));
  const open = withId.filter((w) => !FINAL.has(states.get(w.commandId as string) ?? ''));
  const internal = writes.filter((w) => w.status === 500).length;
  return [
    {
      check: 'commands reached a final state',
      verdict: open.length || internal ? 'FAIL' : 'ok',
      figures: `${writes.length} writes answered: ${answers}; receipts: ${finalStates}${open.length ? `; NOT FINAL ${open.length}, written ${when(open, faultAt)}` : ''}`,
    },
  ];
}

export function watcherRows(reports: WatcherReport[]): Row[] {
  return reports.map((r) => {
    const moved = r.connections.length > 1;
    const gapsAfterMove = r.connections.slice(1).reduce((sum, c) => sum + c.liveGaps, 0);
    const gapsBefore = r.connections[0]?.liveGaps ?? 0;
    const path = r.connections.map((c) => c.node).join(' → ') || 'never connected';
    const verdict = r.stale.length || (moved && gapsAfterMove) || r.connections.length === 0 ? 'FAIL' : gapsBefore ? 'warn' : 'ok';
    const figures = [
      `${path}${moved ? ` (moved ${r.connections.length - 1}×, live gaps after the move ${gapsAfterMove})` : ' (not moved)'};`,
      `live gaps on its first connection ${gapsBefore}; gaps before a resync ${r.syncGaps}; ${r.events} events, ${r.notifications} notifications;`,
      r.stale.length ? `view ≠ server at the end: ${r.stale.slice(0, 4).join(', ')}` : 'view = server at the end',
    ].join(' ');
    return { check: `Socket.IO ${r.name}`, verdict, figures };
  });
}
