import { randomInt, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startStack, type Stack } from '../helpers/stack';

/**
 * Register throttled per client address, and the client address under TRUST_PROXY (docs/limits.md
 * "Register and login throttles", "Client address and TRUST_PROXY"). Requests leave from a loopback
 * address of their own (127.x.y.z), so each test counts against an address no other file uses.
 */

const LIMIT = 3;
const WINDOW_S = 3600;

function loopback(): string {
  return `127.${randomInt(1, 255)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

function forged(): string {
  return `198.51.100.${randomInt(1, 255)}`;
}

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
}

/** POST /auth/register from the socket address `from`, with an X-Forwarded-For header when given. */
function register(stack: Stack, from: string, forwardedFor?: string, email = `user-${randomUUID()}@example.com`): Promise<Answer> {
  const url = new URL('/api/v1/auth/register', stack.baseUrl);
  const body = JSON.stringify({ email, password: 'correct horse battery' });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          const parsed = JSON.parse(text) as { error?: { code?: string } };
          resolve({ status: res.statusCode ?? 0, code: parsed.error?.code, retryAfter: res.headers['retry-after'] });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function expectThrottled(answer: Answer): void {
  expect({ status: answer.status, code: answer.code }).toEqual({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
  const retryAfter = Number(answer.retryAfter);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
}

const limits = { REGISTER_MAX_PER_ADDRESS: String(LIMIT), REGISTER_WINDOW_S: String(WINDOW_S) };

describe('TRUST_PROXY=0 (no proxy): the socket address counts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ overrides: { ...limits, TRUST_PROXY: '0' } });
  }, 60_000);
  afterAll(async () => {
    await stack.stop();
  });

  it('refuses an address past its registrations per window, failed ones included; another address still registers', async () => {
    const from = loopback();
    const email = `user-${randomUUID()}@example.com`;
    expect((await register(stack, from, undefined, email)).status).toBe(201);
    expect((await register(stack, from, undefined, email)).status).toBe(409);
    expect((await register(stack, from)).status).toBe(201);
    expectThrottled(await register(stack, from));
    expect((await register(stack, loopback())).status).toBe(201);
  });

  it('ignores X-Forwarded-For: a new forged address each time does not make a new budget', async () => {
    const from = loopback();
    for (let i = 0; i < LIMIT; i++) expect((await register(stack, from, forged())).status).toBe(201);
    expectThrottled(await register(stack, from, forged()));
  });
});

describe('TRUST_PROXY=1 (one proxy in front): the address the proxy saw counts, the rightmost X-Forwarded-For entry', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ overrides: { ...limits, TRUST_PROXY: '1' } });
  }, 60_000);
  afterAll(async () => {
    await stack.stop();
  });

  it("counts the proxy's entry, whatever the client forged to its left", async () => {
    const proxy = loopback();
    const client = forged();
    for (let i = 0; i < LIMIT; i++) expect((await register(stack, proxy, `${forged()}, ${client}`)).status).toBe(201);
    expectThrottled(await register(stack, proxy, client));
    expectThrottled(await register(stack, proxy, `${forged()}, ${client}`));
    expectThrottled(await register(stack, proxy, `${forged()}, ${forged()}, ${client}`));
    // Another client behind the same proxy has a budget of its own.
    expect((await register(stack, proxy, forged())).status).toBe(201);
  });
});
