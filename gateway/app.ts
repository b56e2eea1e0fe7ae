import { createServer, type Server } from 'node:http';
import express from 'express';
import type { Metrics } from '../common/metrics';
import type { Redis } from '../common/redis';
import { accessLog } from './http/access-log';
import { requireUserExceptPublic } from './http/auth-context';
import { brokerRoutes } from './routes/broker';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { jsonBodyElsewhere } from './http/json-body';
import { managementRateLimit } from './http/management-rate-limit';
import { httpMetrics } from './http/metrics-middleware';
import { meteredIngest } from './ingest/metered-ingest';
import { createMetricsServer } from './http/metrics-server';
import { docsUi } from './openapi/docs-ui';
import { buildOpenApiDocument } from './openapi/document';
import { staticDashboard } from './http/static-dashboard';
import { healthRoutes, type ReadinessCheck } from './routes/health';
import { externalRestRoutes } from './external/rest-routes';
import { firmwareDownloadRoutes } from './external/firmware-download';
import { provisionRoutes } from './external/provision-routes';
import { simpleRoutes } from './external/simple-routes';
import { createSocketServer, type SocketServer } from './realtime/socket-server';
import { adminRoutes } from './routes/admin';
import { alarmRoutes } from './routes/alarms';
import { commandRoutes } from './routes/commands';
import { apiKeyRoutes } from './routes/api-keys';
import { authRoutes } from './routes/auth';
import { verifyEmailRoutes } from './routes/verify-email';
import { dataReadRoutes } from './routes/data-read';
import { dataWriteRoutes } from './routes/data-write';
import { deviceRoutes } from './routes/devices';
import { deviceImportRoutes } from './routes/device-import';
import { firmwareRoutes } from './routes/firmware';
import { jobRoutes } from './routes/jobs';
import { lockRoutes } from './routes/locks';
import { memberRoutes } from './routes/members';
import { notificationRoutes } from './routes/notifications';
import { projectRoutes } from './routes/projects';
import { ruleRoutes } from './routes/rules';
import { templateRoutes } from './routes/templates';
import { simpleApiSettingRoutes } from './routes/simple-api-settings';
import { widgetRoutes } from './routes/widgets';
import type { RouteDeps } from './routes/route-deps';

export interface GatewayComponents extends Omit<RouteDeps, 'revocations'> {
  metrics: Metrics;
  /** Socket.IO adapter connections: a normal one to publish, a dedicated one to subscribe. */
  pub: Redis;
  sub: Redis;
  readiness: Record<string, ReadinessCheck>;
}

export interface Gateway {
  app: express.Express;
  server: Server;
  sockets: SocketServer;
  /** This node's counters (GET /metrics). */
  metrics: Metrics;
  listen(port: number, host?: string): Promise<number>;
  /** Serves GET /metrics on its own port (METRICS_PORT by default); resolves with the port. */
  listenMetrics(port?: number, host?: string): Promise<number>;
  /** Stops taking requests, lets in-flight ones finish (up to the grace period), then closes. */
  close(): Promise<void>;
}

const managementRouters = [
  authRoutes,
  verifyEmailRoutes,
  adminRoutes,
  apiKeyRoutes,
  projectRoutes,
  memberRoutes,
  templateRoutes,
  deviceRoutes,
  deviceImportRoutes,
  simpleApiSettingRoutes,
  dataWriteRoutes,
  dataReadRoutes,
  lockRoutes,
  widgetRoutes,
  ruleRoutes,
  notificationRoutes,
  alarmRoutes,
  commandRoutes,
  firmwareRoutes,
  jobRoutes,
  brokerRoutes,
];

/** Builds a gateway node (HTTP + Socket.IO) from its components; it does not listen until asked. */
export function createGateway(components: GatewayComponents): Gateway {
  const { config, logger, metrics } = components;
  let shuttingDown = false;

  const app = express();
  const server = createServer(app);
  const metricsServer = createMetricsServer(metrics);
  const sockets = createSocketServer({
    httpServer: server,
    pub: components.pub,
    sub: components.sub,
    stores: components.stores,
    ingest: meteredIngest(components.ingest, metrics, 'socket'),
    logger,
  });
  metrics.gauge('dds_socketio_connections', 'Socket.IO clients connected to this node', () => sockets.io.engine.clientsCount);
  const through = (door: 'data' | 'external' | 'simple'): RouteDeps => ({
    ...components,
    revocations: sockets.revocations,
    ingest: meteredIngest(components.ingest, metrics, door),
  });

  app.disable('x-powered-by');
  // Every API answer is live data, and the simple interface writes through GET: no ETag (hashing
  // each body, and a 304 a write's answer must never be). The dashboard's files keep theirs (express.static).
  app.set('etag', false);
  // A hop count: req.ip is the address that many hops from the socket in X-Forwarded-For, so a
  // client's own (forged) entries, left of the ones the proxies add, are never read (docs/operations.md).
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(httpMetrics(app, metrics));
  app.use(accessLog(logger));
  app.use(healthRoutes({ ...components.readiness, socketio: () => sockets.subscribed() }, () => shuttingDown));
  const openApi = buildOpenApiDocument();
  app.get('/openapi.json', (_req, res) => void res.json(openApi));
  app.use('/docs', docsUi());
  app.use('/external/api/v1', externalRestRoutes(through('external')));
  app.use('/external/api', firmwareDownloadRoutes(components));
  app.use('/external/api', provisionRoutes(components));
  app.use('/external/api', simpleRoutes(through('simple')));
  app.use(jsonBodyElsewhere);

  const api = express.Router();
  api.use(requireUserExceptPublic({ sessions: components.stores.sessions, apiKeys: components.stores.apiKeys, logger }));
  api.use(managementRateLimit(config, components.stores));
  const managementDeps = through('data');
  for (const routes of managementRouters) api.use(routes(managementDeps));
  app.use('/api/v1', api);
  const dashboard = staticDashboard();
  if (dashboard) app.use(dashboard);
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  return {
    app,
    server,
    sockets,
    metrics,
    listen(port, host = config.HOST) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    listenMetrics(port = config.METRICS_PORT, host = config.HOST) {
      return new Promise((resolve, reject) => {
        metricsServer.once('error', reject);
        metricsServer.listen(port, host, () => {
          const address = metricsServer.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    close() {
      shuttingDown = true;
      if (metricsServer.listening) metricsServer.close();
      return new Promise((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
        sockets.close();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
