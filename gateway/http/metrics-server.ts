import { createServer, type Server } from 'node:http';
import type { Metrics } from '../../common/metrics';

/**
 * GET /metrics on its own port (METRICS_PORT), apart from the public API: the load balancer only
 * forwards PORT, so the series are reachable from the cluster network and nowhere else.
 */
export function createMetricsServer(metrics: Metrics): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(err)}\n`),
    );
  });
}
