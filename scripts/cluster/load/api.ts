/**
 * The management API through the balancer, as an app uses it: register, plan, project, devices,
 * rules, writes and the reads the checks need. Setup calls are retried (a scenario may begin
 * while a node leaves rotation); the checks' reads too, until their deadline.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

export interface ApiAnswer<T = unknown> {
  status: number;
  body: { success?: boolean; data?: T; error?: { code: string; message: string; details?: unknown } } | null;
}

export class Api {
  token = '';

  constructor(
    readonly baseUrl: string,
    private readonly adminToken: string,
  ) {}

  async call<T = unknown>(method: string, path: string, body?: unknown, bearer = this.token, timeoutMs = 5000): Promise<ApiAnswer<T>> {
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: ApiAnswer<T>['body'] = null;
    try {
      parsed = text ? (JSON.parse(text) as ApiAnswer<T>['body']) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed };
  }

  /** Calls until the answer has `want` status (retrying errors and 5xx for up to `timeoutMs`); returns its data. */
  async must<T>(method: string, path: string, body: unknown, want: number, timeoutMs = 30_000, bearer = this.token): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        const answer = await this.call<T>(method, path, body, bearer);
        if (answer.status === want) return answer.body?.data as T;
        last = `${answer.status} ${JSON.stringify(answer.body?.error ?? answer.body)}`;
        if (answer.status < 500 && answer.status !== 429) throw new Error(`${method} ${path}: ${last}`);
      } catch (e) {
        if ((e as Error).message.startsWith(`${method} ${path}:`)) throw e;
        last = (e as Error).message;
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: no ${want} within ${timeoutMs} ms (last: ${last})`);
      await delay(500);
    }
  }

  /** A fresh user on the enterprise plan (no quota or value rate in the way), with a project. */
  async account(label: string): Promise<{ userId: string; projectId: string }> {
    const email = `cluster-${label}-${randomUUID().slice(0, 8)}@example.test`;
    const reg = await this.must<{ user: { id: string }; accessToken: string }>(
      'POST',
      '/auth/register',
      { email, password: `pw-${randomUUID()}`, name: `cluster ${label}` },
      201,
      30_000,
      '',
    );
    this.token = reg.accessToken;
    await this.must('PUT', `/admin/users/${reg.user.id}/plan`, { plan: 'enterprise' }, 200, 30_000, this.adminToken);
    const project = await this.must<{ id: string }>('POST', '/projects', { name: `cluster ${label}` }, 201);
    return { userId: reg.user.id, projectId: project.id };
  }

  async device(projectId: string, name: string): Promise<{ id: string; token: string }> {
    const device = await this.must<{ id: string; token: string }>('POST', '/devices', { projectId, name }, 201);
    return { id: device.id, token: device.token };
  }

  async rule(body: Record<string, unknown>): Promise<string> {
    return (await this.must<{ id: string }>('POST', '/notifications/rules', body, 201)).id;
  }
}
