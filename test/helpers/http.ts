/** A small JSON client for the gateway under test. */
// biome-ignore lint/suspicious/noExplicitAny: a test reads the body as the API documents it; each assertion checks the fields it reads
export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export function httpClient(baseUrl: string) {
  // biome-ignore lint/suspicious/noExplicitAny: as HttpResult's body
  return async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
}

export type Request = ReturnType<typeof httpClient>;
