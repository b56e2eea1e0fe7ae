import type { Express, RequestHandler } from 'express';
import type { Metrics } from '../../common/metrics';
import { routeTemplateOf } from './route-table';

/**
 * Times every HTTP request and records it by method, route template (`unmatched` when no route
 * took it) and status, once the response is finished.
 */
export function httpMetrics(app: Express, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const method = req.method;
    const path = req.path;
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.http.observe(method, routeTemplateOf(app, method, path) ?? 'unmatched', res.statusCode, seconds);
    });
    next();
  };
}
