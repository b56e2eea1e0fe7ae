import { randomInt } from 'node:crypto';
import { registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

const PASSWORD = 'correct horse battery';
const WINDOW_S = 900;

let stack: Stack;
beforeAll(async () => {
  // One proxy in front, so each test speaks from client addresses of its own (X-Forwarded-For).
  stack = await startStack({
    overrides: {
      TRUST_PROXY: '1',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
      LOGIN_FAILURE_WINDOW_S: String(WINDOW_S),
    },
  });
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

function address(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

function login(email: string, password: string, from: string) {
  return stack.request('POST', '/api/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': from } });
}

function expectThrottled(res: Awaited<ReturnType<typeof login>>): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) } });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
}

describe('login throttling', () => {
  it('refuses an account after its limit of wrong passwords, from any address, even with the right password', async () => {
    const user: TestUser = await registerUser(stack.request);
    for (let i = 0; i < 3; i++) expect((await login(user.email, 'wrong-password', address())).status).toBe(401);
    expectThrottled(await login(user.email, PASSWORD, address()));
    expectThrottled(await login(user.email.toUpperCase(), 'wrong-password', address()));
    const other = await registerUser(stack.request);
    expect((await login(other.email, PASSWORD, address())).status).toBe(200);
  });

  it("resets an account's count on a successful login", async () => {
    const user = await registerUser(stack.request);
    for (let i = 0; i < 2; i++) expect((await login(user.email, 'wrong-password', address())).status).toBe(401);
    expect((await login(user.email, PASSWORD, address())).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login(user.email, 'wrong-password', address())).status).toBe(401);
    expectThrottled(await login(user.email, PASSWORD, address()));
  });

  it('refuses an address after its limit of wrong passwords, whatever account it tries next', async () => {
    const from = address();
    const known = await registerUser(stack.request);
    for (let i = 0; i < 5; i++) expect((await login(`nobody-${i}@example.com`, 'wrong-password', from)).status).toBe(401);
    expectThrottled(await login(known.email, PASSWORD, from));
    expect((await login(known.email, PASSWORD, address())).status).toBe(200);
  });

  it("counts the proxy's entry of X-Forwarded-For: addresses the client forged to its left change nothing", async () => {
    const from = address();
    for (let i = 0; i < 5; i++)
      expect((await login(`nobody-${i}@example.com`, 'wrong-password', `${address()}, ${from}`)).status).toBe(401);
    expectThrottled(await login('nobody@example.com', 'wrong-password', `${address()}, ${address()}, ${from}`));
  });

  it('counts successes from an address only as successes: many users behind one address can log in', async () => {
    const from = address();
    for (let i = 0; i < 7; i++) {
      const user = await registerUser(stack.request);
      expect((await login(user.email, PASSWORD, from)).status).toBe(200);
    }
  });

  it('holds the limit under a concurrent burst: no more wrong-password checks than the limit', async () => {
    const user = await registerUser(stack.request);
    const answers = await Promise.all(Array.from({ length: 12 }, () => login(user.email, 'wrong-password', address())));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
  });
});
