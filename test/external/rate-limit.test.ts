import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { sleep } from '../helpers/wait';
import { createApiKey, enableSimpleApi, minuteWindowEnd, rateHeaders, setPlan } from './fixtures';
import { keys } from '../../common/redis-keys';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ nodes: 2 });
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

/** A user on `plan` with an API key: a fresh rate-limit window of their own. */
async function caller(plan: 'pro' | 'pro_plus' | 'enterprise'): Promise<{ user: TestUser; key: string }> {
  const user = await registerUser(stack.request);
  await setPlan(stack.request, user, plan);
  return { user, key: (await createApiKey(stack.request, user)).key };
}

/** Waits for the next minute window when the current one is nearly over, so a burst stays inside one window. */
async function roomInThisMinute(neededMs = 20_000): Promise<void> {
  const left = minuteWindowEnd() * 1000 - Date.now();
  if (left < neededMs) await sleep(left + 50);
}

const today = () => new Date().toISOString().slice(0, 10);
const nodeOf = (i: number) => stack.nodes[i % stack.nodes.length]!;
const devices = (key: string, i = 0) => nodeOf(i).request('GET', '/external/api/v1/devices', { headers: { 'x-api-key': key } });

describe('rate limits per plan (SPEC §8, DESIGN §9)', () => {
  it('lets 60 requests a minute through on Pro, counting down, and answers the 61st with 429 and the headers', async () => {
    const { key } = await caller('pro');
    await roomInThisMinute();
    const reset = minuteWindowEnd();
    for (let i = 1; i <= 60; i++) {
      const res = await devices(key, i);
      expect(res.status).toBe(200);
      expect(rateHeaders(res.headers)).toEqual({ limit: 60, remaining: 60 - i, reset });
    }
    const refused = await devices(key, 61);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) } });
    expect(rateHeaders(refused.headers)).toEqual({ limit: 60, remaining: 0, reset });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('lets exactly the limit through when 200 requests arrive at once on two nodes; the refused ones are not counted', async () => {
    const { user, key } = await caller('pro');
    await roomInThisMinute();
    const window = Math.floor(Date.now() / 60_000);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => devices(key, i)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
    expect(results.every((r) => r.headers.get('x-ratelimit-limit') === '60')).toBe(true);
    const remaining = results.filter((r) => r.status === 200).map((r) => rateHeaders(r.headers).remaining);
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(await stack.redis.get(keys.rateLimitMinute(user.id, window))).toBe('60');
    expect(await stack.redis.get(keys.rateLimitDay(user.id, today()))).toBe('60');
  });

  it('scales with the plan: Pro Plus 300, Enterprise 1000 a minute', async () => {
    for (const [plan, limit] of [
      ['pro_plus', 300],
      ['enterprise', 1000],
    ] as const) {
      const { key } = await caller(plan);
      const res = await devices(key);
      expect(rateHeaders(res.headers)).toMatchObject({ limit, remaining: limit - 1 });
    }
  });

  it('refuses once the day is used up (Pro: 10000), even with minutes to spare; Remaining shows the day', async () => {
    const { user, key } = await caller('pro');
    await roomInThisMinute();
    await stack.redis.set(keys.rateLimitDay(user.id, today()), '9998');
    const last = await devices(key);
    expect(last.status).toBe(200);
    expect(rateHeaders(last.headers)).toMatchObject({ limit: 60, remaining: 1 });
    expect((await devices(key)).status).toBe(200);
    const refused = await devices(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(rateHeaders(refused.headers)).toMatchObject({ limit: 60, remaining: 0 });
    expect(await stack.redis.get(keys.rateLimitDay(user.id, today()))).toBe('10000');
  });

  it('has no daily limit on Enterprise', async () => {
    const { user, key } = await caller('enterprise');
    await stack.redis.set(keys.rateLimitDay(user.id, today()), '5000000');
    const res = await devices(key);
    expect(res.status).toBe(200);
    expect(rateHeaders(res.headers).remaining).toBe(999);
  });

  it('counts the REST and simple interfaces together, per owner', async () => {
    const { user, key } = await caller('pro');
    const project = await createProject(stack.request, user);
    const device = await createDevice(stack.request, user, project.id);
    const token = await enableSimpleApi(stack.request, user, device.id);
    await roomInThisMinute();
    for (let i = 0; i < 30; i++) expect((await devices(key, i)).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await nodeOf(i).request('GET', `/external/api/is-online?token=${token}`)).status).toBe(200);
    const simple = await stack.request('GET', `/external/api/is-online?token=${token}`);
    expect(simple.status).toBe(429);
    expect(rateHeaders(simple.headers)).toMatchObject({ limit: 60, remaining: 0 });
    expect((await devices(key)).status).toBe(429);
  });

  it('keeps counters that expire after their window', async () => {
    const { user, key } = await caller('pro');
    const window = Math.floor(Date.now() / 60_000);
    await devices(key);
    const minuteTtl = await stack.redis.ttl(keys.rateLimitMinute(user.id, window));
    expect(minuteTtl).toBeGreaterThan(0);
    expect(minuteTtl).toBeLessThanOrEqual(120);
    const dayTtl = await stack.redis.ttl(keys.rateLimitDay(user.id, today()));
    expect(dayTtl).toBeGreaterThan(0);
    expect(dayTtl).toBeLessThanOrEqual(86_400 + 60);
  });
});

describe('RATE_LIMIT_MULTIPLIER', () => {
  let scaled: Stack;
  beforeAll(async () => {
    scaled = await startStack({ overrides: { RATE_LIMIT_MULTIPLIER: '2.5' } });
  });
  afterAll(async () => {
    await scaled.stop();
  });

  it('scales every limit (Pro: 150 a minute)', async () => {
    const user = await registerUser(scaled.request);
    await setPlan(scaled.request, user, 'pro');
    const key = (await createApiKey(scaled.request, user)).key;
    const res = await scaled.request('GET', '/external/api/v1/devices', { headers: { 'x-api-key': key } });
    expect(rateHeaders(res.headers)).toMatchObject({ limit: 150, remaining: 149 });
  });
});
