import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { userIdOf } from '../http/auth-context';
import { largeJsonBody } from '../http/json-body';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { type ImportedDevice, importDevices } from '../devices/import-devices';
import { deviceDescription, deviceName, deviceSerial, deviceTags } from '../schemas/device-fields';
import type { RouteDeps } from './route-deps';

/** Rows one import may carry (DESIGN §14). */
export const IMPORT_MAX_ROWS = 10_000;

const importRow = z.strictObject({
  name: deviceName,
  serial: deviceSerial.optional(),
  tags: deviceTags.default([]),
  description: deviceDescription.default(''),
});

export const importBody = z
  .strictObject({
    projectId: z.uuid(),
    templateId: z.uuid().nullable().default(null),
    devices: z.array(importRow).min(1).max(IMPORT_MAX_ROWS),
  })
  .superRefine(({ devices }, ctx) => {
    const firstRow = new Map<string, number>();
    devices.forEach(({ serial }, index) => {
      if (serial === undefined) return;
      const first = firstRow.get(serial);
      if (first === undefined) firstRow.set(serial, index);
      else ctx.addIssue({ code: 'custom', path: ['devices', index, 'serial'], message: `repeats the serial of row ${first}` });
    });
  });

export const importQuery = z.strictObject({ format: z.enum(['json', 'csv']).optional() });

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
const csvField = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** The credentials CSV: a header line, then one line per device, in the order of the rows. */
export function credentialsCsv(devices: ImportedDevice[]): string {
  const lines = devices.map((d) => [d.id, d.name, d.serial ?? '', d.token].map(csvField).join(','));
  return `id,name,serial,token\n${lines.join('\n')}\n`;
}

function wantsCsv(req: Request, format: 'json' | 'csv' | undefined): boolean {
  return format === undefined ? req.accepts(['application/json', 'text/csv']) === 'text/csv' : format === 'csv';
}

function sendCredentials(res: Response, csv: boolean, projectId: string, devices: ImportedDevice[]): void {
  // The tokens are in this answer only: no cache may keep it.
  res.setHeader('Cache-Control', 'no-store');
  if (csv) res.status(201).type('text/csv').attachment(`devices-${projectId}.csv`).send(credentialsCsv(devices));
  else sendData(res, { created: devices, failed: [] }, 201);
}

/**
 * `POST /api/v1/devices/import` (DESIGN §14, docs/provisioning.md "Bulk import"), editor: up to
 * 10,000 devices of one project in one request, all made or none (a bad row is a 400 naming it, a
 * serial already provisioned a 409 naming its rows, past the owner's quota a 403, and nothing is
 * written). 201 with each device's `dt_` token, as JSON (`{created, failed: []}`) or, with
 * `?format=csv` or `Accept: text/csv`, as a CSV download; the tokens are stored hashed only.
 * Its body is read after authentication, with a larger limit than other routes.
 */
export function deviceImportRoutes(deps: Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'carryOutNow' | 'logger'>): Router {
  const router = Router();
  router.use('/devices/import', largeJsonBody);
  router.post('/devices/import', async (req, res) => {
    const { format } = parseInput(importQuery, req.query, 'query');
    const body = parseInput(importBody, req.body, 'body');
    const { project } = await projectAccess(deps.stores, userIdOf(res), body.projectId, 'editor');
    const devices = await importDevices(deps, project.id, body.templateId, body.devices);
    sendCredentials(res, wantsCsv(req, format), project.id, devices);
  });
  return router;
}
