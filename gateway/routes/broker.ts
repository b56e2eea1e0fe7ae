import { Router } from 'express';
import { sendData } from '../http/respond';
import type { RouteDeps } from './route-deps';

/**
 * Where devices connect (DESIGN §6): the broker address they reach (PUBLIC_MQTT_URL, else this
 * node's MQTT_URL) and the topic root of their topics, for the console's connect panel. Any
 * signed-in user may read it; it holds no credential (the URL's user and password are dropped).
 */
export function brokerRoutes({ config }: Pick<RouteDeps, 'config'>): Router {
  const router = Router();
  const url = new URL(config.PUBLIC_MQTT_URL ?? config.MQTT_URL);
  url.username = '';
  url.password = '';
  const mqttUrl = url.toString().replace(/\/$/, '');

  router.get('/broker', (_req, res) => {
    sendData(res, { mqttUrl, topicRoot: config.MQTT_TOPIC_ROOT });
  });

  return router;
}
