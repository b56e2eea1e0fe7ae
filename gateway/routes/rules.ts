import { randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import type { NotificationRule } from '../../common/contracts';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access';
import { deviceNotInProject, projectRecordAccess } from '../resource-access';
import type { RouteDeps } from '../route-deps';
import { createRuleBody, patchRuleBody, ruleDefinition, type RuleDefinition } from '../schemas/rule';

export const listQuery = z.object({ projectId: z.uuid() });
const uuid = z.uuid();

/** Everything a client may change, including the alarm settings the rule has (gateway/schemas/rule.ts). */
function definitionOf(rule: NotificationRule): RuleDefinition {
  const { id: _id, projectId: _projectId, createdAt: _createdAt, ...definition } = rule;
  return definition;
}

/**
 * Notification rules (DESIGN §8): viewers read; editors create, change and delete. The store
 * announces every change to the gateways' threshold rule caches; the routes then have the twin of
 * each affected device reload its no_data / offline / online rules.
 */
export function ruleRoutes({ stores, twins, logger }: RouteDeps): Router {
  const router = Router();

  async function ruleFor(res: Response, ruleId: string, needed: Role): Promise<NotificationRule> {
    const rule = uuid.safeParse(ruleId).success ? await stores.rules.get(ruleId) : null;
    if (!rule) throw new AppError('RULE_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), rule.projectId, needed, 'RULE_NOT_FOUND');
    return rule;
  }

  /** A twin that cannot be told now picks the change up when it next loads its rules. */
  async function tellTwins(projectId: string, deviceIds: string[]): Promise<void> {
    await Promise.all(
      [...new Set(deviceIds)].map((deviceId) =>
        twins
          .rulesChanged(deviceId, projectId)
          .catch((err: unknown) => logger.warn({ err, deviceId }, 'twin not told its rules changed')),
      ),
    );
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
    const rule: NotificationRule = { id: randomUUID(), projectId: project.id, ...definition, createdAt: new Date().toISOString() };
    if (!(await stores.rules.create(rule))) throw deviceNotInProject();
    await tellTwins(rule.projectId, [rule.deviceId]);
    sendData(res, rule, 201);
  });

  router.patch('/notifications/rules/:ruleId', async (req, res) => {
    const { id } = await ruleFor(res, req.params.ruleId, 'editor');
    const patch = parseInput(patchRuleBody, req.body, 'body');
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const result = await stores.rules.update(id, async (current) => ({
      ...current,
      ...parseInput(ruleDefinition, { ...definitionOf(current), ...changes }, 'body'),
    }));
    if (result.kind === 'gone') throw new AppError('RULE_NOT_FOUND');
    if (result.kind === 'refused') throw deviceNotInProject();
    await tellTwins(result.after.projectId, [result.before.deviceId, result.after.deviceId]);
    sendData(res, result.after);
  });

  router.delete('/notifications/rules/:ruleId', async (req, res) => {
    const rule = await ruleFor(res, req.params.ruleId, 'editor');
    if (!(await stores.rules.delete(rule))) throw new AppError('RULE_NOT_FOUND');
    await tellTwins(rule.projectId, [rule.deviceId]);
    sendNoContent(res);
  });

  return router;
}
