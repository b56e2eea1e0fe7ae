import type { Client } from '@temporalio/client';
import type { MqttClient } from 'mqtt';
import type { Redis } from '../../common/redis';
import type { TwinClient } from '../../gateway/temporal/twin-client';
import { createDevices, type BenchAccount } from './api';
import type { Backends } from './backends';
import type { Cleanup } from './cleanup';
import { pool, waitUntil } from './lanes';
import { mirrorFields } from './mirror';
import { closeFleet, connectFleet } from './mqtt-fleet';

/** What every phase of bench/fleet-rules works with. */
export interface FleetRun {
  backends: Backends;
  cleanup: Cleanup;
  redis: Redis;
  client: Client;
  /** For the twins' `state` query. */
  twins: TwinClient;
  baseUrl: string;
  metricsUrl: string;
  account: BenchAccount;
  pids: { gateway: number; worker: number };
  topicRoot: string;
  taskQueue: string;
  /** Requests and state queries in flight at once. */
  lanes: number;
  /** The longest any wait of the bench lasts. */
  limitMs: number;
}

/** Devices of one template in one project, their twins bootstrapped. */
export interface Fleet {
  project: BenchAccount;
  templateId: string;
  ids: string[];
  /** The project-wide `offline` rule, once one is made. */
  offlineRuleId?: string;
  /** Devices that were online before (their twins' liveness watches run at the heartbeat of then). */
  onlineBefore: string[];
}

/** A rule through POST /api/v1/notifications/rules; its id. */
export async function createRule(project: BenchAccount, body: Record<string, unknown>): Promise<string> {
  const rule = await project.call<{ id: string }>('POST', '/api/v1/notifications/rules', {
    projectId: project.projectId,
    message: '{value}',
    ...body,
  });
  return rule.id;
}

/**
 * A template (V1, a FLOAT) with `heartbeatTimeoutS` and `count` devices made from it through the
 * API, `lanes` at a time; resolves once every twin has bootstrapped (its mirror has a status).
 */
export async function makeFleet(run: FleetRun, project: BenchAccount, count: number, heartbeatTimeoutS: number): Promise<Fleet> {
  const template = await project.call<{ id: string }>('POST', '/api/v1/templates', {
    projectId: project.projectId,
    name: 'bench kind',
    heartbeatTimeoutS,
    pins: [{ pin: 'V1', name: 'value', dataType: 'FLOAT' }],
  });
  const t0 = Date.now();
  const ids = await createDevices(project, count, run.lanes, { templateId: template.id });
  const createdMs = Date.now() - t0;
  await waitUntil(
    'twins bootstrapped',
    async () => (await mirrorFields(run.redis, ids, 'status')).every((s) => s !== null),
    run.limitMs,
    500,
  );
  process.stdout.write(
    `fleet: ${count} devices of one template created in ${(createdMs / 1000).toFixed(1)} s, their twins bootstrapped after ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return { project, templateId: template.id, ids, onlineBefore: [] };
}

/** A few MQTT connections with the service's account, to publish for any device. */
export async function statusClients(run: FleetRun, count = 4): Promise<MqttClient[]> {
  const clients = await connectFleet({
    url: run.backends.mqttUrl,
    username: run.backends.mqttUsername,
    password: run.backends.mqttPassword,
    count,
  });
  run.cleanup.add('status clients', () => closeFleet(clients));
  return clients;
}

/** Publishes `status` (QoS 1) for each device, `lanes` at a time: when each was sent (epoch ms). */
export async function publishStatus(
  run: FleetRun,
  clients: readonly MqttClient[],
  ids: readonly string[],
  status: 'online' | 'offline',
): Promise<Map<string, number>> {
  const sentAt = new Map<string, number>();
  await pool(ids, 64, async (id, i) => {
    sentAt.set(id, Date.now());
    await (clients[i % clients.length] as MqttClient).publishAsync(`${run.topicRoot}/${id}/status`, status, { qos: 1 });
  });
  return sentAt;
}

/** Publishes `online` for each device and waits until the mirror shows each online with its twin confirmed (`statusAhead` gone). */
export async function bringOnline(run: FleetRun, clients: readonly MqttClient[], ids: readonly string[]): Promise<void> {
  await publishStatus(run, clients, ids, 'online');
  await waitUntil(
    'sample online, confirmed by the twins',
    async () => {
      const [status, ahead] = await Promise.all([mirrorFields(run.redis, ids, 'status'), mirrorFields(run.redis, ids, 'statusAhead')]);
      return status.every((s) => s === 'online') && ahead.every((a) => a === null);
    },
    run.limitMs,
    250,
  );
}
