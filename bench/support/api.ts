import { randomUUID } from 'node:crypto';

/** Calls the management API; returns `data` of the envelope, throws naming the call on a non-2xx answer. */
export type ApiCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

export function apiClient(baseUrl: string, token?: string): ApiCall {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(300_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { data: T }).data;
  };
}

export interface BenchAccount {
  token: string;
  projectId: string;
  /** The API as the bench user. */
  call: ApiCall;
}

/** Registers a fresh user and creates one project. */
export async function createAccount(baseUrl: string): Promise<BenchAccount> {
  const anonymous = apiClient(baseUrl);
  const { accessToken } = await anonymous<{ accessToken: string }>('POST', '/api/v1/auth/register', {
    email: `bench-${randomUUID()}@example.com`,
    password: 'bench-password-123',
    name: 'Bench',
  });
  const call = apiClient(baseUrl, accessToken);
  const project = await call<{ id: string }>('POST', '/api/v1/projects', { name: 'bench', description: 'benchmark run' });
  return { token: accessToken, projectId: project.id, call };
}

/** A new project of the account's user: the same account, working in it. */
export async function createProjectOf(account: BenchAccount, name: string): Promise<BenchAccount> {
  const project = await account.call<{ id: string }>('POST', '/api/v1/projects', { name, description: 'benchmark run' });
  return { ...account, projectId: project.id };
}

/**
 * Creates `count` devices in the account's project, `concurrency` requests at a time, each with
 * `fields` too (e.g. `templateId`); ids in creation order.
 */
export async function createDevices(
  account: BenchAccount,
  count: number,
  concurrency = 16,
  fields: Record<string, unknown> = {},
): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const device = await account.call<{ id: string }>('POST', '/api/v1/devices', {
        name: `bench-device-${index}`,
        projectId: account.projectId,
        ...fields,
      });
      ids[index] = device.id;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return ids;
}
