import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * Where `npm start` put the service and its broker (the broker may be on a free port), written to
 * ./data/endpoints.json so `npm run simulate` finds them without flags.
 */
export const localEndpoints = z.object({
  url: z.url(),
  mqttUrl: z.url(),
  /** With MQTT_TLS=1: mqttUrl is the TLS listener, and this CA certificate verifies it. */
  caFile: z.string().min(1).optional(),
  topicRoot: z.string().min(1),
  metricsUrl: z.url(),
});

export type LocalEndpoints = z.infer<typeof localEndpoints>;

const file = (dataDir: string) => join(dataDir, 'endpoints.json');

export function writeLocalEndpoints(dataDir: string, endpoints: LocalEndpoints): void {
  writeFileSync(file(dataDir), `${JSON.stringify(endpoints, null, 2)}\n`);
}

/** The endpoints of a running `npm start` in this directory, or null when there is none or it is unreadable. */
export function readLocalEndpoints(dataDir: string): LocalEndpoints | null {
  try {
    const parsed = localEndpoints.safeParse(JSON.parse(readFileSync(file(dataDir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
