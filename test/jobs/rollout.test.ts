import type { JobDevice } from '../../common/jobs';
import { zeroCounts } from '../../common/jobs';
import { commandStep, countsOf, isOpen, otaStep } from '../../activities/job-steps';
import { nextPollMs, pace, UNPACED_BATCH, verdict } from '../../workflows/job/rollout';

const rollout = { maxPerMinute: null, abortFailureRatio: 0.2, minDevices: 5 };
const entry = (over: Partial<JobDevice> = {}): JobDevice => ({
  deviceId: 'd1',
  state: 'sent',
  commandId: 'c1',
  updatedAt: '2026-01-01T00:00:00.000Z',
  error: null,
  sentMs: 1_000,
  ...over,
});

describe('a job rollout (workflows/job/rollout.ts)', () => {
  it('paces sends so that no minute has more than maxPerMinute', () => {
    expect(pace(null)).toEqual({ batch: UNPACED_BATCH, intervalMs: 0, spacingMs: 0 });
    expect(pace(60)).toEqual({ batch: 1, intervalMs: 1000, spacingMs: 0 });
    expect(pace(6)).toEqual({ batch: 1, intervalMs: 10_000, spacingMs: 0 });
    expect(pace(240)).toEqual({ batch: 4, intervalMs: 1000, spacingMs: 250 });
    for (const rate of [1, 7, 59, 60, 61, 239, 240, 241, 1000, 100_000]) {
      const { batch, intervalMs, spacingMs } = pace(rate);
      // Dispatches start intervalMs apart, each sending `batch`: at most `rate` a minute, plus the one dispatch a minute can cut.
      expect(Math.floor(60_000 / intervalMs) * batch).toBeLessThanOrEqual(rate);
      // Sends inside a dispatch are spaced as the rate asks, and a dispatch fits in its interval.
      if (batch > 1) expect(spacingMs * (batch - 1)).toBeLessThan(intervalMs);
      expect(intervalMs).toBeGreaterThanOrEqual(Math.min(1000, 60_000 / rate));
    }
  });

  it('aborts once failures pass the ratio, counted from minDevices finished on', () => {
    const counts = { ...zeroCounts(), acknowledged: 3, failed: 1 };
    expect(verdict(rollout, counts, false, 3)).toBe('go-on'); // 4 finished < 5
    expect(verdict(rollout, { ...counts, expired: 1 }, false, 3)).toBe('abort'); // 2 of 5 > 0.2
    expect(verdict(rollout, { ...counts, acknowledged: 4 }, false, 3)).toBe('go-on'); // 1 of 5 = 0.2, not past it
    expect(verdict({ ...rollout, abortFailureRatio: null }, { ...zeroCounts(), failed: 50 }, true, 0)).toBe('complete');
  });

  it('completes once every target was sent to and none is followed', () => {
    expect(verdict(rollout, { ...zeroCounts(), acknowledged: 10 }, true, 0)).toBe('complete');
    expect(verdict(rollout, { ...zeroCounts(), acknowledged: 10 }, true, 1)).toBe('go-on');
    expect(verdict(rollout, { ...zeroCounts(), acknowledged: 10 }, false, 0)).toBe('go-on');
  });

  it('looks again after 1 s while devices move, backing off to 10 s', () => {
    expect(nextPollMs(1000, false)).toBe(2000);
    expect(nextPollMs(8000, false)).toBe(10_000);
    expect(nextPollMs(10_000, true)).toBe(1000);
  });
});

describe("a job's device (activities/job-steps.ts)", () => {
  const command = (state: 'queued' | 'sent' | 'acknowledged' | 'expired' | 'superseded') => ({
    id: 'c1',
    deviceId: 'd1',
    pin: 'V1',
    value: '1',
    state,
    createdAt: '',
    sentAt: null,
    acknowledgedAt: null,
    expiresAt: null,
  });

  it('follows its command receipt; a superseded or missing one fails it', () => {
    expect(commandStep(entry(), command('sent'), 2000).state).toBe('sent');
    expect(commandStep(entry(), command('acknowledged'), 2000).state).toBe('acknowledged');
    expect(commandStep(entry({ state: 'queued' }), command('expired'), 2000).state).toBe('expired');
    expect(commandStep(entry(), command('superseded'), 2000)).toMatchObject({
      state: 'failed',
      error: expect.stringContaining('superseded'),
    });
    expect(commandStep(entry(), null, 2000)).toMatchObject({ state: 'failed', error: 'command record gone' });
  });

  it('keeps the same entry when nothing moved, so nothing is written', () => {
    const e = entry();
    expect(commandStep(e, command('sent'), 2000)).toBe(e);
    expect(otaStep(e, { report: undefined, firmwareVersion: '1.0.0', version: '2.0.0', now: 2000, ttlMs: 60_000 })).toBe(e);
  });

  it('succeeds an OTA device on done with the new version in its info, not before', () => {
    const facts = { version: '2.0.0', now: 2000, ttlMs: 60_000 };
    const done = { jobId: 'j', state: 'done' as const };
    expect(otaStep(entry(), { ...facts, report: done, firmwareVersion: '1.0.0' }).state).toBe('sent');
    expect(otaStep(entry(), { ...facts, report: done, firmwareVersion: '2.0.0' }).state).toBe('succeeded');
    expect(
      otaStep(entry(), { ...facts, report: { jobId: 'j', state: 'failed', error: 'bad sha256' }, firmwareVersion: null }),
    ).toMatchObject({
      state: 'failed',
      error: 'bad sha256',
    });
    expect(otaStep(entry(), { ...facts, now: 61_000, report: { jobId: 'j', state: 'installing' }, firmwareVersion: '1.0.0' }).state).toBe(
      'expired',
    );
  });

  it('is followed while sent or queued within the TTL, and counted by state', () => {
    expect(isOpen(entry(), 2000, 60_000)).toBe(true);
    expect(isOpen(entry(), 61_000, 60_000)).toBe(false);
    expect(isOpen(entry({ state: 'pending', sentMs: null }), 2000, 60_000)).toBe(false);
    expect(isOpen(entry({ state: 'acknowledged' }), 2000, 60_000)).toBe(false);
    expect(countsOf([entry(), entry({ state: 'pending' }), entry({ state: 'failed' }), entry({ state: 'sent' })])).toEqual({
      ...zeroCounts(),
      sent: 2,
      failed: 1,
    });
  });
});
