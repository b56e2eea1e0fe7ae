import { z } from 'zod';

const envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });
const session = envelope(z.object({ accessToken: z.string() }));
const projects = envelope(z.object({ projects: z.array(z.object({ id: z.string(), name: z.string() })) }));
const project = envelope(z.object({ id: z.string(), name: z.string() }));
const device = z.object({ id: z.string(), name: z.string(), token: z.string() });
const devices = envelope(z.object({ devices: z.array(device), total: z.number() }));
const created = envelope(device);
const regenerated = envelope(z.object({ token: z.string() }));
const latest = envelope(z.object({ value: z.string() }));

export class ApiError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SimulatedDevice {
  id: string;
  name: string;
  /** The device's MQTT password (a fresh dt_ token). */
  token: string;
}

/** The management API (`/api/v1`) calls the simulator makes, each answer checked with zod. */
export function managementApi(baseUrl: string) {
  let token = '';

  async function call<T extends z.ZodType>(method: string, path: string, schema: T, body?: unknown): Promise<z.infer<T>> {
    const res = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json: unknown = await res.json().catch(() => null);
    const parsed = schema.safeParse(json);
    if (!res.ok || !parsed.success) throw new ApiError(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return parsed.data;
  }

  return {
    /** Logs in; registers the account first when the email is unknown. */
    async signIn(email: string, password: string): Promise<void> {
      try {
        token = (await call('POST', '/auth/login', session, { email, password })).data.accessToken;
      } catch {
        token = (await call('POST', '/auth/register', session, { email, password, name: 'Device simulator' })).data.accessToken;
      }
    },

    /**
     * The project `nameOrId` names: by id it must be one of the account's projects (never made);
     * by name the account's project with that name, created when there is none.
     */
    async project(nameOrId: string): Promise<{ id: string; name: string; created: boolean }> {
      const all = (await call('GET', '/projects', projects)).data.projects;
      const found = all.find((p) => p.id === nameOrId) ?? all.find((p) => p.name === nameOrId);
      if (found) return { ...found, created: false };
      if (UUID.test(nameOrId)) throw new ApiError(`No project with id ${nameOrId} in this account`);
      const made = (await call('POST', '/projects', project, { name: nameOrId, description: 'Simulated devices (npm run simulate)' })).data;
      return { ...made, created: true };
    },

    /**
     * The project's devices with these names: existing ones are joined with a regenerated token
     * (tokens are stored hashed, so the old one cannot be read back), missing ones created.
     */
    async devices(projectId: string, names: readonly string[]): Promise<Array<SimulatedDevice & { joined: boolean }>> {
      const existing = new Map<string, string>();
      for (let page = 1; ; page++) {
        const list = (await call('GET', `/devices?projectId=${projectId}&limit=100&page=${page}`, devices)).data;
        for (const d of list.devices) if (!existing.has(d.name)) existing.set(d.name, d.id);
        if (page * 100 >= list.total) break;
      }
      const result: Array<SimulatedDevice & { joined: boolean }> = [];
      for (const name of names) {
        const id = existing.get(name);
        if (id) {
          result.push({ id, name, token: (await call('POST', `/devices/${id}/regenerate-token`, regenerated)).data.token, joined: true });
        } else {
          const made = (await call('POST', '/devices', created, { name, projectId, description: 'simulated', tags: ['simulator'] })).data;
          result.push({ id: made.id, name, token: made.token, joined: false });
        }
      }
      return result;
    },

    /** The latest value of a device's virtual pin, or null when it has none yet. */
    async latest(deviceId: string, pin: number): Promise<string | null> {
      try {
        return (await call('GET', `/data/${deviceId}/${pin}/latest`, latest)).data.value;
      } catch {
        return null;
      }
    },
  };
}

export type ManagementApi = ReturnType<typeof managementApi>;
