/**
 * What the twin's main loop does next and when a run hands over to the next
 * (workflows/twin/schedule.ts, workflows/twin/continue-as-new.ts), as plain functions.
 */
import {
  CONTINUE_AS_NEW_LULL_MS,
  continueAsNewDue,
  RUN_MESSAGE_BUDGET,
  RUN_MESSAGE_HARD_LIMIT,
} from '../../../workflows/twin/continue-as-new';
import { nextMove, waitOver } from '../../../workflows/twin/schedule';
import { cfg, iso, online, started, T0, watchCfg } from './fixtures';

const quiet = { continueAsNewSuggested: false, historyLength: 10 };
const suggested = { continueAsNewSuggested: true, historyLength: 10 };

describe('history budget', () => {
  test('continue-as-new when Temporal suggests it or a budget is spent', () => {
    const s = started();
    expect(continueAsNewDue(s, { continueAsNewSuggested: false, historyLength: 10 })).toBe(false);
    expect(continueAsNewDue(s, { continueAsNewSuggested: true, historyLength: 10 })).toBe(true);
    expect(continueAsNewDue(s, { continueAsNewSuggested: false, historyLength: 10_001 })).toBe(true);
    const busy = { ...s, run: { messages: RUN_MESSAGE_BUDGET + 1, lastMessageAt: T0 } };
    expect(continueAsNewDue(busy, { continueAsNewSuggested: false, historyLength: 10 })).toBe(true);
  });
});

describe('the main loop', () => {
  test('a deadline that has come is a check-back; else a wait until it (none with the liveness watch)', () => {
    const s = online();
    expect(nextMove(s, cfg, quiet, T0 + 60_000)).toEqual({ kind: 'check-back' });
    expect(nextMove(s, cfg, quiet, T0)).toEqual({ kind: 'wait', until: T0 + 60_000, handingOver: false });
    expect(nextMove(s, watchCfg, quiet, T0)).toEqual({ kind: 'wait', until: null, handingOver: false });
  });

  test('a hand-over waits for a lull in messages, unless the run nears the hard limit', () => {
    const busy = { ...started(), run: { messages: 10, lastMessageAt: T0 } };
    expect(nextMove(busy, cfg, suggested, T0 + 100)).toEqual({ kind: 'wait', until: T0 + CONTINUE_AS_NEW_LULL_MS, handingOver: true });
    expect(nextMove(busy, cfg, suggested, T0 + CONTINUE_AS_NEW_LULL_MS)).toEqual({ kind: 'continue-as-new' });
    const flooded = { ...busy, run: { messages: RUN_MESSAGE_HARD_LIMIT, lastMessageAt: T0 + 100 } };
    expect(nextMove(flooded, cfg, suggested, T0 + 100)).toEqual({ kind: 'continue-as-new' });
  });

  test('a wait ends early when the twin ends, a hand-over becomes due, or a deadline moves earlier', () => {
    const s = online();
    const wait = nextMove(s, cfg, quiet, T0);
    if (wait.kind !== 'wait') throw new Error('expected a wait');
    expect(waitOver(s, cfg, wait, quiet, T0 + 1)).toBe(false);
    expect(waitOver({ ...s, ending: 'ended' }, cfg, wait, quiet, T0 + 1)).toBe(true);
    expect(waitOver(s, cfg, wait, suggested, T0 + 1)).toBe(true);
    expect(waitOver(s, cfg, { ...wait, handingOver: true }, suggested, T0 + 1)).toBe(false);
    const held = { ...s, statusHolds: { r: { status: 'online' as const, since: iso(T0), notifyAt: T0 + 5000 } } }; // due before the heartbeat
    expect(waitOver(held, cfg, wait, quiet, T0 + 1)).toBe(true);
  });
});
