import type { Express } from 'express';

/** The parts of an Express 5 router layer this module reads (router 2.x keeps them on each layer). */
interface Layer {
  rawPath?: unknown;
  match(path: string): false | { path: string };
  route?: { path: string; methods: Record<string, boolean | undefined> };
  handle: { stack?: Layer[] };
}

export interface RouteEntry {
  method: string;
  /** The full path template as Express declares it, e.g. `/api/v1/devices/:deviceId`. */
  template: string;
}

function stackOf(app: Express): Layer[] {
  return (app.router as unknown as { stack: Layer[] }).stack;
}

const mountPath = (layer: Layer): string => (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '');

function methodsOf(route: NonNullable<Layer['route']>): string[] {
  return Object.entries(route.methods)
    .filter(([name, on]) => on && name !== '_all')
    .map(([name]) => name.toUpperCase());
}

/** Every (method, template) the app's routers serve, in the order Express tries them. */
export function listRoutes(app: Express): RouteEntry[] {
  const walk = (stack: Layer[], prefix: string): RouteEntry[] =>
    stack.flatMap((layer): RouteEntry[] => {
      if (layer.route) {
        const template = prefix + layer.route.path;
        return methodsOf(layer.route).map((method) => ({ method, template }));
      }
      return layer.handle.stack ? walk(layer.handle.stack, prefix + mountPath(layer)) : [];
    });
  return walk(stackOf(app), '');
}

const UNDECODABLE = 'undecodable';

/**
 * A layer's match of `path`; UNDECODABLE when the path fits its pattern but a parameter does not
 * percent-decode (Express answers that request 400, and it still belongs to this route's label).
 */
function matchOf(layer: Layer, path: string): false | { path: string } | typeof UNDECODABLE {
  try {
    return layer.match(path);
  } catch {
    return UNDECODABLE;
  }
}

/**
 * The route template Express would dispatch `method path` to, using its own matchers, or null.
 * Metrics label requests with it, never with the raw path (ids would explode label cardinality).
 */
export function routeTemplateOf(app: Express, method: string, path: string): string | null {
  const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
  const find = (stack: Layer[], rest: string, prefix: string): string | null => {
    for (const layer of stack) {
      const match = matchOf(layer, rest);
      if (!match) continue;
      if (layer.route) {
        if (methodsOf(layer.route).some((m) => wanted.includes(m))) return prefix + layer.route.path;
        continue;
      }
      if (!layer.handle.stack || match === UNDECODABLE) continue;
      const found = find(layer.handle.stack, rest.slice(match.path.length) || '/', prefix + mountPath(layer));
      if (found) return found;
    }
    return null;
  };
  return find(stackOf(app), path, '');
}
