import { ADMIN_TOKEN, startStack, type Stack } from '../helpers/stack';
import { registerUser } from '../helpers/fixtures';
import { scanKeys } from '../helpers/scan-keys';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

/** Every value stored in Redis under keys matching the pattern, as one string. */
async function dumpValues(pattern: string): Promise<string> {
  const found = await stack.redis.keys(pattern);
  const values = await Promise.all(
    found.map(async (k) => {
      const type = await stack.redis.type(k);
      if (type === 'hash') return JSON.stringify(await stack.redis.hgetall(k));
      if (type === 'string') return (await stack.redis.get(k)) ?? '';
      return '';
    }),
  );
  return found.join('\n') + values.join('\n');
}

describe('register and login', () => {
  it('registers a user with the default plan and returns an access token', async () => {
    const res = await stack.request('POST', '/api/v1/auth/register', {
      body: { email: 'Ada@Example.com', password: 'lovelace-1843', name: 'Ada' },
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data.user).toEqual({
      id: expect.any(String),
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'free',
      emailVerified: false,
    });
    expect(res.body.data.accessToken).toEqual(expect.any(String));
    expect(Date.parse(res.body.data.expiresAt)).toBeGreaterThan(Date.now());

    const me = await stack.request('GET', '/api/v1/auth/me', { token: res.body.data.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      id: res.body.data.user.id,
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'free',
      emailVerified: false,
      createdAt: expect.any(String),
      quotas: expect.objectContaining({ devices: { limit: 10, used: 0 } }),
    });
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    const res = await stack.request('POST', '/api/v1/auth/register', {
      body: { email: 'ADA@example.com', password: 'another-password' },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, error: { code: 'CONFLICT', message: expect.any(String) } });
  });

  it('lists every problem of an invalid registration', async () => {
    const res = await stack.request('POST', '/api/v1/auth/register', { body: { email: 'not-an-email', password: 'short' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['body.email', 'body.password']);
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR, not 500', async () => {
    const res = await stack.request('POST', '/api/v1/auth/register', { rawBody: '{"email": "x@y.z", ' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('logs in with the right password and refuses a wrong one', async () => {
    const ok = await stack.request('POST', '/api/v1/auth/login', { body: { email: 'ada@example.com', password: 'lovelace-1843' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.email).toBe('ada@example.com');
    expect(ok.body.data.accessToken).toEqual(expect.any(String));

    const wrong = await stack.request('POST', '/api/v1/auth/login', { body: { email: 'ada@example.com', password: 'nope-nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');

    const unknown = await stack.request('POST', '/api/v1/auth/login', { body: { email: 'who@example.com', password: 'nope-nope-nope' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('invalidates the token at once on logout', async () => {
    const user = await registerUser(stack.request);
    const out = await stack.request('POST', '/api/v1/auth/logout', { token: user.token });
    expect(out.status).toBe(204);
    const me = await stack.request('GET', '/api/v1/auth/me', { token: user.token });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers a missing or invalid bearer with 401 UNAUTHORIZED', async () => {
    const missing = await stack.request('GET', '/api/v1/auth/me');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    const invalid = await stack.request('GET', '/api/v1/auth/me', { token: 'sess_forged' });
    expect(invalid.status).toBe(401);
  });

  it('keeps no password or access token readable in Redis', async () => {
    const login = await stack.request('POST', '/api/v1/auth/login', { body: { email: 'ada@example.com', password: 'lovelace-1843' } });
    const dump = await dumpValues('*');
    expect(dump).not.toContain('lovelace-1843');
    expect(dump).not.toContain(login.body.data.accessToken);
  });
});

describe('admin plan endpoint', () => {
  it('changes a plan with the admin token only', async () => {
    const user = await registerUser(stack.request);
    const path = `/api/v1/admin/users/${user.id}/plan`;
    expect((await stack.request('PUT', path, { body: { plan: 'pro' } })).status).toBe(401);
    expect((await stack.request('PUT', path, { token: user.token, body: { plan: 'pro' } })).status).toBe(401);

    const ok = await stack.request('PUT', path, { token: ADMIN_TOKEN, body: { plan: 'pro' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ id: user.id, plan: 'pro' });
    const me = await stack.request('GET', '/api/v1/auth/me', { token: user.token });
    expect(me.body.data.plan).toBe('pro');

    const bad = await stack.request('PUT', path, { token: ADMIN_TOKEN, body: { plan: 'platinum' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');

    const missing = await stack.request('PUT', '/api/v1/admin/users/00000000-0000-4000-8000-000000000000/plan', {
      token: ADMIN_TOKEN,
      body: { plan: 'pro' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('USER_NOT_FOUND');
  });
});

describe('API keys', () => {
  it('shows a new key once, lists it without the secret, and revokes it', async () => {
    const user = await registerUser(stack.request);
    const created = await stack.request('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      name: 'ci',
      key: expect.stringMatching(/^dds_[A-Za-z0-9_-]{40,}$/),
      createdAt: expect.any(String),
      expiresAt: null,
    });
    const key: string = created.body.data.key;

    const list = await stack.request('GET', '/api/v1/api-keys', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.data.apiKeys).toEqual([
      {
        id: created.body.data.id,
        name: 'ci',
        prefix: key.slice(0, 10),
        createdAt: created.body.data.createdAt,
        expiresAt: null,
        lastUsedAt: null,
      },
    ]);
    expect(list.text).not.toContain(key);
    expect(await dumpValues('apikey*')).not.toContain(key);

    const other = await registerUser(stack.request);
    const foreign = await stack.request('DELETE', `/api/v1/api-keys/${created.body.data.id}`, { token: other.token });
    expect(foreign.status).toBe(404);

    const revoked = await stack.request('DELETE', `/api/v1/api-keys/${created.body.data.id}`, { token: user.token });
    expect(revoked.status).toBe(204);
    const after = await stack.request('GET', '/api/v1/api-keys', { token: user.token });
    expect(after.body.data.apiKeys).toEqual([]);
    expect(await scanKeys(stack.redis, 'apikey:*')).not.toContainEqual(expect.stringContaining(created.body.data.id));
  });

  it('accepts a future expiry and refuses a past one', async () => {
    const user = await registerUser(stack.request);
    const future = new Date(Date.now() + 86400000).toISOString();
    const ok = await stack.request('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'temp', expiresAt: future } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.expiresAt).toBe(future);
    const past = await stack.request('POST', '/api/v1/api-keys', {
      token: user.token,
      body: { name: 'old', expiresAt: '2020-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(400);
    expect(past.body.error.details[0].field).toBe('body.expiresAt');
  });
});

describe('unknown routes', () => {
  it('answer 404 NOT_FOUND in the envelope to a signed-in caller', async () => {
    const user = await registerUser(stack.request);
    const res = await stack.request('GET', '/api/v1/nothing-here', { token: user.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('answer 401 without a token: the bearer check covers every management path but the public ones', async () => {
    const res = await stack.request('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});
