import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { newDevice, type DeviceWithState } from '../../store/devices';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { deviceAccess, projectAccess } from '../access/project-access';
import { createDevice } from '../devices/create-device';
import { updateDevice } from '../devices/update-device';
import { heartbeatTimeoutS } from '../schemas/heartbeat';
import { deviceDescription, deviceName, deviceTags } from '../schemas/device-fields';
import { parseSemVer } from '../../common/semver';
import type { RouteDeps } from './route-deps';

const name = deviceName;
const description = deviceDescription;
const tags = deviceTags;

export const listQuery = z.strictObject({
  projectId: z.uuid().optional(),
  status: z.enum(['online', 'offline']).optional(),
  /** Name contains, any case (DESIGN §13). */
  q: z.string().min(1).max(100).optional(),
  /** Has this tag (DESIGN §13). */
  tag: z.string().min(1).max(50).optional(),
  /** Made from or given this template (DESIGN §13). */
  templateId: z.uuid().optional(),
  /** Provisioned with this serial (DESIGN §14), exactly. */
  serial: z.string().min(1).max(64).optional(),
  /** Firmware semantically equal to this version (DESIGN §13). */
  firmwareVersion: z.string().trim().min(1).max(64).optional(),
  /** Firmware a semantic version below this one (DESIGN §13). */
  firmwareVersionLt: z
    .string()
    .trim()
    .refine((v) => parseSemVer(v) !== null, 'must be a semantic version such as 1.4.2')
    .optional(),
  /** Last heard from before / after this time (ISO 8601 with offset; DESIGN §13). */
  lastSeenBefore: z.iso.datetime({ offset: true }).transform(Date.parse).optional(),
  lastSeenAfter: z.iso.datetime({ offset: true }).transform(Date.parse).optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const createBody = z.object({
  name,
  projectId: z.uuid(),
  description: description.default(''),
  tags: tags.default([]),
  templateId: z.uuid().nullable().default(null),
  heartbeatTimeoutS: heartbeatTimeoutS.default(null),
});
export const patchBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    tags: tags.optional(),
    templateId: z.uuid().nullable().optional(),
    heartbeatTimeoutS: heartbeatTimeoutS.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'name, description, tags, templateId or heartbeatTimeoutS is required');

function maskedToken(d: DeviceWithState): string {
  return `dt_…${d.tokenLast4}`;
}

/** The management view of a device (SPEC §2.4); `token` is the real one only right after it is made. */
function deviceView(d: DeviceWithState, token: string) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    tags: d.tags,
    templateId: d.templateId,
    heartbeatTimeoutS: d.heartbeatTimeoutS,
    serial: d.serial,
    status: d.state.status,
    lastSeen: d.state.lastSeen,
    projectId: d.projectId,
    token,
    ipAddress: d.state.ipAddress,
    firmwareVersion: d.state.firmwareVersion,
    disconnectReason: d.state.disconnectReason,
    createdAt: d.createdAt,
  };
}

/** Devices (SPEC §4.2, DESIGN §12): viewers read; editors create, change, re-key and delete. */
export function deviceRoutes({
  config,
  stores,
  broker,
  tokens,
  logger,
  carryOutNow,
}: Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'tokens' | 'logger' | 'carryOutNow'>): Router {
  const router = Router();

  router.get('/devices', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'query');
    const userId = userIdOf(res);
    const projectIds = query.projectId
      ? [(await projectAccess(stores, userId, query.projectId, 'viewer')).project.id]
      : await stores.projects.projectIdsOf(userId);
    const { devices, total } = await stores.devices.list(projectIds, query);
    sendData(res, {
      devices: devices.map((d) => deviceView(d, maskedToken(d))),
      total,
      page: query.page,
      limit: query.limit,
    });
  });

  router.post('/devices', async (req, res) => {
    const body = parseInput(createBody, req.body, 'body');
    const { project } = await projectAccess(stores, userIdOf(res), body.projectId, 'editor');
    const { device, token } = await createDevice({ config, stores, broker, carryOutNow, logger }, newDevice(project.id, body));
    // The twin starts through the outbox (written with the device): Temporal being down delays it, and loses it not.
    sendData(res, deviceView(device, token), 201);
  });

  router.get('/devices/:deviceId', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'viewer');
    sendData(res, deviceView(device, maskedToken(device)));
  });

  router.patch('/devices/:deviceId', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const body = parseInput(patchBody, req.body, 'body');
    const updated = await updateDevice({ stores, carryOutNow }, device, body);
    sendData(res, deviceView(updated, maskedToken(updated)));
  });

  /**
   * A new `dt_` token (rotate-device-token.ts): 200 once the broker took it (the old one no longer logs
   * in, and its session is dropped); 202 when the broker did not confirm in time and takes it once
   * it answers; 503 naming the dependency when nothing changed (the old token still works).
   */
  router.post('/devices/:deviceId/regenerate-token', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const rotated = await tokens.rotate(device.id);
    if (!rotated) throw new AppError('DEVICE_NOT_FOUND');
    sendData(res, { token: rotated.token }, rotated.applied ? 200 : 202);
  });

  router.delete('/devices/:deviceId', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    await carryOutNow(await stores.devices.delete(device.id));
    sendNoContent(res);
  });

  router.get('/devices/:deviceId/status', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'viewer');
    const { status, lastSeen, ipAddress, firmwareVersion } = device.state;
    sendData(res, { status, lastSeen, ipAddress, firmwareVersion });
  });

  return router;
}
