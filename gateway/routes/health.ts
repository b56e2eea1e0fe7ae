import { Router } from 'express';
import { errorBody, sendData } from '../http/respond';
import { AppError } from '../../common/errors';

/** A dependency the node needs before it can serve: resolves when reachable, rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/** A check that has not answered by then fails, so /readyz answers within about a second even when a dependency hangs. */
const CHECK_TIMEOUT_MS = 1000;

function withTimeout(check: ReadinessCheck, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    check().then(
      () => (clearTimeout(timer), resolve()),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
}

/** `/healthz`: the process is up. `/readyz`: every dependency answers; 503 naming those that do not. */
export function healthRoutes(checks: Record<string, ReadinessCheck>, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => sendData(res, { status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name] as ReadinessCheck, CHECK_TIMEOUT_MS)));
    const details = results.flatMap((r, i) =>
      r.status === 'rejected'
        ? [{ field: names[i] as string, problem: r.reason instanceof Error ? r.reason.message : String(r.reason) }]
        : [],
    );
    if (isShuttingDown()) details.push({ field: 'node', problem: 'shutting down' });
    if (details.length === 0) {
      sendData(res, { status: 'ready', checks: Object.fromEntries(names.map((n) => [n, 'ok'])) });
      return;
    }
    const error = new AppError('SERVICE_UNAVAILABLE', `Not ready: ${details.map((d) => d.field).join(', ')}`, details);
    res.status(503).json(errorBody(error));
  });
  return router;
}
