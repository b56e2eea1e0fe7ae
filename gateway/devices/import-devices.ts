import { AppError } from '../../common/errors';
import { requireProjectTemplate } from '../access/record-access';
import { newDevice } from '../../store/devices';
import type { RouteDeps } from '../routes/route-deps';
import { createDevices } from './create-device';

export interface ImportRow {
  name: string;
  serial?: string | undefined;
  tags: string[];
  description: string;
}

export interface ImportedDevice {
  id: string;
  name: string;
  serial: string | null;
  token: string;
}

/**
 * A bulk import (DESIGN §14, docs/provisioning.md "Bulk import"): every row a device of the
 * project, with the template when one is given, all made or none. With a template, the rows'
 * serials are claimed in its slot first, all at once (the claim a device provisioning itself
 * takes), so a serial imported or provisioned before is 409 ALREADY_PROVISIONED naming its rows;
 * then the devices are made by the one create path (create-device.ts: the owner's devices quota for
 * all of them at once, broker credentials, one atomic step into the project with their twins'
 * start intents). A create that fails gives the serials back. Tokens are returned here and
 * nowhere else; the log carries counts and ids only.
 */
export async function importDevices(
  deps: Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'carryOutNow' | 'logger'>,
  projectId: string,
  templateId: string | null,
  rows: ImportRow[],
): Promise<ImportedDevice[]> {
  const { stores, logger } = deps;
  const fresh = rows.map((row) => newDevice(projectId, { ...row, templateId, serial: row.serial ?? null }));
  const claims = fresh.flatMap(({ device }) => (device.serial ? [{ serial: device.serial, deviceId: device.id }] : []));
  // Checked before any serial is claimed in the template's slot.
  if (templateId) await requireProjectTemplate(stores, projectId, templateId);
  if (templateId && claims.length > 0) {
    const taken = new Set(await stores.provisioning.claimSerials(templateId, claims));
    if (taken.size > 0) {
      const details = rows.flatMap((row, index) =>
        row.serial !== undefined && taken.has(row.serial)
          ? [{ field: `body.devices.${index}.serial`, problem: `serial ${row.serial} was already provisioned from this template` }]
          : [],
      );
      throw new AppError(
        'ALREADY_PROVISIONED',
        `${details.length} row(s) name a serial already provisioned from this template; nothing was imported`,
        details,
      );
    }
  }
  try {
    await createDevices(deps, fresh);
  } catch (err) {
    if (templateId && claims.length > 0) {
      await stores.provisioning
        .releaseSerials(templateId, claims)
        .catch((releaseErr: unknown) =>
          logger.warn({ err: releaseErr, templateId, projectId }, "a failed import's serials are left claimed"),
        );
    }
    throw err;
  }
  logger.info({ projectId, templateId, devices: fresh.length }, 'devices imported');
  return fresh.map(({ device, token }) => ({ id: device.id, name: device.name, serial: device.serial, token }));
}
