import { randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import type { DeviceWidget, Widget } from '../../store/widgets';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import {
  deviceNotInProject,
  projectRecordAccess,
  requireProjectDevice,
  requireProjectTemplate,
  templateNotInProject,
} from '../access/record-access';
import { projectQuota } from '../access/quotas';
import type { RouteDeps } from './route-deps';
import { configOf, createWidgetBody, mergeConfig, patchWidgetBody } from '../schemas/widget';
import { holdsLock, mayLock } from '../devices/widget-locks';

/** A project's widgets, or a template's dashboard (DESIGN §12): one of the two. */
export const listQuery = z
  .strictObject({ projectId: z.uuid().optional(), templateId: z.uuid().optional() })
  .refine((q) => (q.projectId === undefined) !== (q.templateId === undefined), 'give projectId or templateId');

/** A template's dashboard holds no pin lock: a lock is one device's (DESIGN §5). */
function refuseTemplateLock(widget: Widget): void {
  if (widget.templateId && widget.type === 'KEYPAD' && widget.config.locked === true) {
    throw new AppError('VALIDATION_ERROR', "A template's KEYPAD cannot lock its pin", [
      { field: 'body.config.locked', problem: "a template's dashboard holds no pin lock" },
    ]);
  }
}
const uuid = z.uuid();

/** Widgets (SPEC §4.4, DESIGN §12): viewers read; editors create, change and delete. A widget binds a device's pin or a template's. */
export function widgetRoutes({ config: serviceConfig, stores, widgetLocks }: Pick<RouteDeps, 'config' | 'stores' | 'widgetLocks'>): Router {
  const router = Router();

  async function widgetFor(res: Response, widgetId: string, needed: Role): Promise<Widget> {
    const widget = uuid.safeParse(widgetId).success ? await stores.widgets.get(widgetId) : null;
    if (!widget) throw new AppError('WIDGET_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), widget.projectId, needed, 'WIDGET_NOT_FOUND');
    return widget;
  }

  const { lock, release } = widgetLocks;

  /**
   * Runs `change`, which may take or drop `w`'s lock, behind a `widget-lock` intent (widget-locks.ts):
   * should the change not finish (the widget not written, the node gone), the intent puts the
   * twin's lock in step with the widget as stored.
   */
  async function guarded<T>(w: DeviceWidget, change: () => Promise<T>): Promise<T> {
    const written = await widgetLocks.guard(w);
    const result = await change();
    widgetLocks.done(written);
    return result;
  }

  /**
   * A KEYPAD's pin lock follows `config.locked` (DESIGN §5). The twin is told before the widget is
   * written, so a twin that cannot be reached leaves the widget as it was.
   */
  async function followLock(before: Widget, after: Widget): Promise<void> {
    if (holdsLock(after) && !holdsLock(before)) await lock(after);
    if (holdsLock(before) && !holdsLock(after)) await release(before);
  }

  router.get('/widgets', async (req, res) => {
    const { projectId, templateId } = parseInput(listQuery, req.query, 'query');
    if (templateId !== undefined) {
      const template = await stores.templates.get(templateId);
      if (!template) throw new AppError('TEMPLATE_NOT_FOUND');
      await projectRecordAccess(stores, userIdOf(res), template.projectId, 'viewer', 'TEMPLATE_NOT_FOUND');
      sendData(res, { widgets: await stores.widgets.listOfTemplate(template.id) });
      return;
    }
    const { project } = await projectAccess(stores, userIdOf(res), projectId ?? '', 'viewer');
    sendData(res, { widgets: await stores.widgets.list(project.id) });
  });

  router.post('/widgets', async (req, res) => {
    const body = parseInput(createWidgetBody, req.body, 'body');
    const { config } = parseInput(configOf(body.type), { config: body.config }, 'body');
    const { project } = await projectAccess(stores, userIdOf(res), body.projectId, 'editor');
    if (body.deviceId !== null) await requireProjectDevice(stores, project.id, body.deviceId);
    if (body.templateId !== null) await requireProjectTemplate(stores, project.id, body.templateId);
    const { quota } = await projectQuota(serviceConfig, stores, project.id, 'widgets');
    const now = new Date().toISOString();
    const widget: Widget = {
      id: randomUUID(),
      type: body.type,
      projectId: project.id,
      deviceId: body.deviceId,
      templateId: body.templateId,
      pin: body.pin,
      layout: body.layout,
      config,
      createdAt: now,
      updatedAt: now,
    };
    refuseTemplateLock(widget);
    // The lock is taken first, so a twin that cannot be reached stores nothing; once it may have
    // been taken, a widget not stored has its lock released by the guard's intent
    // (docs/architecture.md "Nothing half-written").
    const store = async (): Promise<void> => {
      if (holdsLock(widget)) await lock(widget);
      if (!(await stores.widgets.create(widget, quota))) throw widget.templateId ? templateNotInProject() : deviceNotInProject();
    };
    await (holdsLock(widget) ? guarded(widget, store) : store());
    sendData(res, widget, 201);
  });

  router.get('/widgets/:widgetId', async (req, res) => {
    sendData(res, await widgetFor(res, req.params.widgetId, 'viewer'));
  });

  router.patch('/widgets/:widgetId', async (req, res) => {
    const widget = await widgetFor(res, req.params.widgetId, 'editor');
    const body = parseInput(patchWidgetBody, req.body, 'body');
    const update = () =>
      stores.widgets.update(widget.id, async (current) => {
        const merged = body.config ? mergeConfig(current.config, body.config) : current.config;
        const { config } = parseInput(configOf(current.type), { config: merged }, 'body');
        const next = { ...current, layout: body.layout ?? current.layout, config, updatedAt: new Date().toISOString() };
        refuseTemplateLock(next);
        await followLock(current, next);
        return next;
      });
    const result = await (mayLock(widget) ? guarded(widget, update) : update());
    if (result.kind !== 'replaced') throw new AppError('WIDGET_NOT_FOUND');
    sendData(res, result.after);
  });

  router.delete('/widgets/:widgetId', async (req, res) => {
    const widget = await widgetFor(res, req.params.widgetId, 'editor');
    const remove = async (): Promise<boolean> => {
      if (holdsLock(widget)) await release(widget);
      return stores.widgets.delete(widget);
    };
    if (!(await (holdsLock(widget) ? guarded(widget, remove) : remove()))) throw new AppError('WIDGET_NOT_FOUND');
    sendNoContent(res);
  });

  return router;
}
