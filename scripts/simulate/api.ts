import { z } from 'zod';
import { DATA_TYPES } from '../../common/widget-config';

const envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });
const session = envelope(z.object({ accessToken: z.string() }));
const projects = envelope(z.object({ projects: z.array(z.object({ id: z.string(), name: z.string() })) }));
const project = envelope(z.object({ id: z.string(), name: z.string() }));
const device = z.object({ id: z.string(), name: z.string(), token: z.string(), templateId: z.string().nullable().optional() });
const devices = envelope(z.object({ devices: z.array(device), total: z.number() }));
const created = envelope(device);
const regenerated = envelope(z.object({ token: z.string() }));
const latest = envelope(z.object({ value: z.string() }));
const template = z.object({
  id: z.string(),
  name: z.string(),
  pins: z.array(
    z.object({ pin: z.string(), name: z.string(), dataType: z.enum(DATA_TYPES), min: z.number().nullable(), max: z.number().nullable() }),
  ),
});
const templates = envelope(z.object({ templates: z.array(template) }));

/** A template of the project, as the simulator uses it (DESIGN §12). */
export type SimulatedTemplate = z.infer<typeof template>;

export class ApiError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SimulatedDevice {
  id: string;
  name: string;
  /** Its template (null: none), as the API answered. */
  templateId: string | null;
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

    /** The project's template `nameOrId` names, by id or by name; never made (a template says what devices send). */
    async template(projectId: string, nameOrId: string): Promise<SimulatedTemplate> {
      const all = (await call('GET', `/templates?projectId=${projectId}`, templates)).data.templates;
      const found = all.find((t) => t.id === nameOrId) ?? all.find((t) => t.name === nameOrId);
      if (!found) {
        const known = all.map((t) => t.name).join(', ');
        throw new ApiError(`No template ${nameOrId} in this project${known ? ` (it has: ${known})` : ' (it has none yet)'}`);
      }
      return found;
    },

    /**
     * The project's devices with these names: existing ones are joined with a regenerated token
     * (tokens are stored hashed, so the old one cannot be read back), missing ones created, with
     * `templateId` when one is given (joined ones keep their own template).
     */
    async devices(projectId: string, names: readonly string[], templateId?: string): Promise<Array<SimulatedDevice & { joined: boolean }>> {
      const existing = new Map<string, { id: string; templateId: string | null }>();
      for (let page = 1; ; page++) {
        const list = (await call('GET', `/devices?projectId=${projectId}&limit=100&page=${page}`, devices)).data;
        for (const d of list.devices) if (!existing.has(d.name)) existing.set(d.name, { id: d.id, templateId: d.templateId ?? null });
        if (page * 100 >= list.total) break;
      }
      const result: Array<SimulatedDevice & { joined: boolean }> = [];
      for (const name of names) {
        const found = existing.get(name);
        if (found) {
          const token = (await call('POST', `/devices/${found.id}/regenerate-token`, regenerated)).data.token;
          result.push({ ...found, name, token, joined: true });
        } else {
          const body = { name, projectId, description: 'simulated', tags: ['simulator'], ...(templateId ? { templateId } : {}) };
          const made = (await call('POST', '/devices', created, body)).data;
          result.push({ id: made.id, name, token: made.token, templateId: made.templateId ?? null, joined: false });
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
