/**
 * Commands kept for a device that was not online (docs/commands.md) go out when it comes online
 * (liveness.ts puts FLUSH_KEPT after the online transition's mirror write and notifications), and
 * whenever a read finds some kept for a device that is online. What the broker did not take stays
 * kept for the next time.
 */
import type { Decision, TwinEffect } from './effects';
import type { TwinState } from './state';

export const FLUSH_KEPT: TwinEffect = { kind: 'flushCommands' };

/** A read found `pending` commands kept: an online device gets them now. */
export function keptCommandsFound(s: TwinState, pending: number): Decision {
  return { state: s, effects: s.status === 'online' && pending > 0 ? [FLUSH_KEPT] : [] };
}

export function commandsFlushed(s: TwinState, delivered: number): TwinState {
  return { ...s, stats: { ...s.stats, commandsDelivered: s.stats.commandsDelivered + delivered } };
}
