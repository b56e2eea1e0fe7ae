import { randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import type { NotificationRule } from '../../common/contracts';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { deviceNotInProject, projectRecordAccess, requireProjectTemplate } from '../access/record-access';
import { projectQuota } from '../access/quotas';
import type { RouteDeps } from './route-deps';
import { createRuleBody, patchRuleBody, ruleDefinition, scopeChange, type RuleDefinition } from '../schemas/rule';

export const listQuery = z.strictObject({ projectId: z.uuid() });
const uuid = z.uuid();

/** Everything a client may change, including the alarm settings the rule has (gateway/schemas/rule.ts). */
function definitionOf(rule: NotificationRule): Omit<RuleDefinition, 'scope'> {
  const { id: _id, projectId: _projectId, createdAt: _createdAt, scope: _scope, ...definition } = rule;
  return definition;
}

/**
 * Notification rules (DESIGN §8, §12): viewers read; editors create, change and delete. A rule
 * covers one device, a template's devices, a tag's or the whole project's. The store announces
 * every change to the gateways' threshold rule caches and writes, in the same step, an outbox
 * intent for the twins it concerns (a device rule's twin reloads now; a scoped rule's fleet
 * catch-up runs: docs/architecture.md "Fleet rules"); the route carries it out before answering,
 * and the relay does when Temporal is down.
 */
export function ruleRoutes({ config, stores, carryOutNow }: Pick<RouteDeps, 'config' | 'stores' | 'carryOutNow'>): Router {
  const router = Router();

  async function ruleFor(res: Response, ruleId: string, needed: Role): Promise<NotificationRule> {
    const rule = uuid.safeParse(ruleId).success ? await stores.rules.get(ruleId) : null;
    if (!rule) throw new AppError('RULE_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), rule.projectId, needed, 'RULE_NOT_FOUND');
    return rule;
  }

  router.get('/notifications/rules', async (req, res) => {
    const { projectId } = parseInput(listQuery, req.query, 'query');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'viewer');
    sendData(res, { rules: await stores.rules.list(project.id) });
  });

  router.post('/notifications/rules', async (req, res) => {
    const { projectId, ...fields } = parseInput(createRuleBody, req.body, 'body');
    const definition = parseInput(ruleDefinition, fields, 'body');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'editor');
    if (definition.templateId !== null) await requireProjectTemplate(stores, project.id, definition.templateId);
    const rule: NotificationRule = { id: randomUUID(), projectId: project.id, ...definition, createdAt: new Date().toISOString() };
    const { quota } = await projectQuota(config, stores, project.id, 'rules');
    const created = await stores.rules.create(rule, quota);
    if (created === null) throw deviceNotInProject();
    await carryOutNow(created);
    sendData(res, rule, 201);
  });

  router.patch('/notifications/rules/:ruleId', async (req, res) => {
    const { id, projectId } = await ruleFor(res, req.params.ruleId, 'editor');
    const patch = parseInput(patchRuleBody, req.body, 'body');
    const changes = { ...scopeChange(patch), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    if (typeof patch.templateId === 'string') await requireProjectTemplate(stores, projectId, patch.templateId);
    const result = await stores.rules.update(id, async (current) => ({
      ...current,
      ...parseInput(ruleDefinition, { ...definitionOf(current), ...changes }, 'body'),
    }));
    if (result.kind === 'gone') throw new AppError('RULE_NOT_FOUND');
    if (result.kind === 'refused') throw deviceNotInProject();
    await carryOutNow(result.written ?? null);
    sendData(res, result.after);
  });

  router.delete('/notifications/rules/:ruleId', async (req, res) => {
    const rule = await ruleFor(res, req.params.ruleId, 'editor');
    const deleted = await stores.rules.delete(rule);
    if (deleted === null) throw new AppError('RULE_NOT_FOUND');
    await carryOutNow(deleted);
    sendNoContent(res);
  });

  return router;
}
