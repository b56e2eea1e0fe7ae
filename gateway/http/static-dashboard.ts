import { existsSync } from 'node:fs';
import path from 'node:path';
import express from 'express';

/** Paths that belong to the service; the console's client-side routes never shadow them. */
const SERVICE_PREFIXES = ['/api', '/external', '/socket.io', '/healthz', '/readyz', '/metrics'];

/**
 * Where `npm run build` puts the console: `dist/dashboard`. From the compiled gateway
 * (`dist/gateway/http`) that is `../../dashboard`; from the sources (`gateway/http`, tests) it is
 * `../../dist/dashboard`.
 */
export function dashboardDir(): string {
  const root = path.resolve(__dirname, '../..');
  return path.basename(root) === 'dist' ? path.join(root, 'dashboard') : path.join(root, 'dist', 'dashboard');
}

function isServicePath(p: string): boolean {
  return SERVICE_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));
}

/**
 * Serves the built web console at `/`: hashed files under `/assets/` are cached for a year and
 * immutable, `index.html` is revalidated on every load, and any other GET that asks for HTML and
 * is not a service path gets `index.html` so client-side routes survive a reload. Null when the
 * console has not been built (the gateway then answers `/` with its 404).
 */
export function staticDashboard(dir = dashboardDir()): express.Router | null {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return null;
  const router = express.Router();
  router.use(
    express.static(dir, {
      index: 'index.html',
      fallthrough: true,
      setHeaders(res, file) {
        const immutable = file.startsWith(path.join(dir, 'assets') + path.sep);
        res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
  );
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isServicePath(req.path) || !req.accepts('html')) return next();
    if (path.extname(req.path) !== '') return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
