import { randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import type { Template } from '../../common/contracts';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import type { TemplateView } from '../../common/contracts';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { projectRecordAccess } from '../access/record-access';
import { projectQuota } from '../access/quotas';
import { createTemplateBody, patchTemplateBody } from '../schemas/template';
import type { RouteDeps } from './route-deps';

export const listQuery = z.strictObject({ projectId: z.uuid() });
const uuid = z.uuid();

/**
 * Device templates (DESIGN §12): viewers read; editors create, change and delete. A delete is
 * refused (409) while a device has the template; it takes the template's dashboard and rules with it.
 * Admins enable (a new key) and disable provisioning (DESIGN §14).
 */
export function templateRoutes({ config, stores, carryOutNow }: Pick<RouteDeps, 'config' | 'stores' | 'carryOutNow'>): Router {
  const router = Router();

  async function templateFor(res: Response, templateId: string, needed: Role): Promise<TemplateView> {
    const template = uuid.safeParse(templateId).success ? await stores.templates.get(templateId) : null;
    if (!template) throw new AppError('TEMPLATE_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), template.projectId, needed, 'TEMPLATE_NOT_FOUND');
    return template;
  }

  router.get('/templates', async (req, res) => {
    const { projectId } = parseInput(listQuery, req.query, 'query');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'viewer');
    sendData(res, { templates: await stores.templates.list(project.id) });
  });

  router.post('/templates', async (req, res) => {
    const { projectId, ...fields } = parseInput(createTemplateBody, req.body, 'body');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'editor');
    const { quota } = await projectQuota(config, stores, project.id, 'templates');
    const template: Template = { id: randomUUID(), projectId: project.id, ...fields, createdAt: new Date().toISOString() };
    sendData(res, await stores.templates.create(template, quota), 201);
  });

  router.get('/templates/:templateId', async (req, res) => {
    sendData(res, await templateFor(res, req.params.templateId, 'viewer'));
  });

  router.patch('/templates/:templateId', async (req, res) => {
    const { id } = await templateFor(res, req.params.templateId, 'editor');
    const patch = parseInput(patchTemplateBody, req.body, 'body');
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const result = await stores.templates.update(id, async (current) => ({ ...current, ...changes }));
    if (result.kind !== 'replaced') throw new AppError('TEMPLATE_NOT_FOUND');
    sendData(res, await templateFor(res, id, 'viewer'));
  });

  router.delete('/templates/:templateId', async (req, res) => {
    const template = await templateFor(res, req.params.templateId, 'editor');
    const outcome = await stores.templates.delete(template);
    if (outcome.kind === 'gone') throw new AppError('TEMPLATE_NOT_FOUND');
    if (outcome.kind === 'in-use') {
      throw new AppError('CONFLICT', `${outcome.devices} device(s) have this template; give them another one or none first`);
    }
    // Its key stopped working with the record (the lookup checks the template); what is left of it goes.
    await stores.provisioning.forget(template.id);
    // Its dashboard and rules go with it (a crash in between leaves them bound to nothing that exists: they cover no device).
    for (const widget of await stores.widgets.listOfTemplate(template.id)) await stores.widgets.delete(widget);
    const rules = (await stores.rules.list(template.projectId)).filter((r) => r.scope === 'template' && r.templateId === template.id);
    for (const rule of rules) await carryOutNow(await stores.rules.delete(rule));
    sendNoContent(res);
  });

  /** A new provisioning key (DESIGN §14, docs/provisioning.md), shown only in this answer; any earlier key stops working. */
  router.post('/templates/:templateId/provisioning', async (req, res) => {
    const { id } = await templateFor(res, req.params.templateId, 'admin');
    const key = await stores.provisioning.enable(id);
    if (!key) throw new AppError('TEMPLATE_NOT_FOUND');
    sendData(res, { enabled: true, key });
  });

  router.delete('/templates/:templateId/provisioning', async (req, res) => {
    const { id } = await templateFor(res, req.params.templateId, 'admin');
    await stores.provisioning.disable(id);
    sendNoContent(res);
  });

  return router;
}
