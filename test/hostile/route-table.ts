import type { Express } from 'express';

export interface RouteEntry {
  method: string;
  /** Full path pattern, e.g. `/api/v1/devices/:deviceId`. */
  path: string;
}

/** The parts of Express 5's router (router@2) layers this reads; not in @types/express. */
interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  rawPath?: unknown;
  handle: { stack?: RouterLayer[] };
}

function join(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

function walk(stack: RouterLayer[], prefix: string, into: RouteEntry[]): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') into.push({ method: method.toUpperCase(), path: join(prefix, layer.route.path) });
      }
    } else if (layer.handle.stack) {
      walk(layer.handle.stack, typeof layer.rawPath === 'string' ? join(prefix, layer.rawPath) : prefix, into);
    }
  }
}

/** Every route the app has registered (method and full path), read from its router stack. */
export function routeTable(app: Express): RouteEntry[] {
  const router = (app as unknown as { router: { stack: RouterLayer[] } }).router;
  const routes: RouteEntry[] = [];
  walk(router.stack, '', routes);
  return routes;
}

/** The names of the `:params` in a route path. */
export function paramsOf(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
}
