import { createApiKey, minuteWindowEnd, setPlan } from '../external/fixtures';
import { registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';
import { sleep } from '../helpers/wait';

/** The management API's per-user rate limit (DESIGN §11, docs/limits.md "Management rate limit"), on small limits. */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    nodes: 2,
    overrides: { QUOTA_FREE_MANAGEMENT_PER_MIN: '5', QUOTA_PRO_MANAGEMENT_PER_MIN: '8', QUOTA_ENTERPRISE_MANAGEMENT_PER_MIN: '0' },
  });
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

/** Waits for the next minute window when the current one is nearly over, so a burst stays inside one window. */
async function roomInThisMinute(neededMs = 15_000): Promise<void> {
  const left = minuteWindowEnd() * 1000 - Date.now();
  if (left < neededMs) await sleep(left + 50);
}

/** A management read as `user`, alternating between the two nodes. */
const projects = (user: TestUser, i: number) => stack.nodes[i % 2]!.request('GET', '/api/v1/projects', { token: user.token });

function expectLimited(res: HttpResult): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) } });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('management rate limit per user', () => {
  it("answers 429 with Retry-After past the plan's requests per minute, counted across nodes; other users are unaffected", async () => {
    const user = await registerUser(stack.request);
    const other = await registerUser(stack.request);
    await roomInThisMinute();
    for (let i = 0; i < 5; i++) expect((await projects(user, i)).status).toBe(200);
    expectLimited(await projects(user, 5));
    expectLimited(await stack.request('POST', '/api/v1/projects', { token: user.token, body: { name: 'refused' } }));
    expect((await projects(other, 0)).status).toBe(200);
    // The public paths are not the user's management requests: the user can still log in.
    const login = await stack.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
  });

  it('counts by the plan of the user (pro 8 here), and not refused requests', async () => {
    const user = await registerUser(stack.request);
    await setPlan(stack.request, user, 'pro');
    await roomInThisMinute();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => projects(user, i)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(8);
    for (const refused of answers.filter((a) => a.status !== 200)) expectLimited(refused);
  });

  it('0 means no limit (enterprise here)', async () => {
    const user = await registerUser(stack.request);
    await setPlan(stack.request, user, 'enterprise');
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => projects(user, i)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 30 }, () => 200));
  });

  it("an API key's requests on the external interface do not spend the management budget", async () => {
    const user = await registerUser(stack.request);
    await setPlan(stack.request, user, 'pro');
    const { key } = await createApiKey(stack.request, user);
    await roomInThisMinute();
    for (let i = 0; i < 10; i++)
      expect((await stack.request('GET', '/external/api/v1/devices', { headers: { 'x-api-key': key } })).status).toBe(200);
    for (let i = 0; i < 7; i++) expect((await projects(user, i)).status).toBe(200);
  });
});
