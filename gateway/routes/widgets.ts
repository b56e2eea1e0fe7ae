import { randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { AppError, isAppError } from '../../common/errors';
import { parsePin } from '../../common/pins';
import type { Role } from '../../common/roles';
import type { Widget } from '../../store/widgets';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access';
import { deviceNotInProject, projectRecordAccess, requireProjectDevice } from '../resource-access';
import type { RouteDeps } from '../route-deps';
import { configOf, createWidgetBody, mergeConfig, patchWidgetBody } from '../schemas/widget';

export const listQuery = z.object({ projectId: z.uuid() });
const uuid = z.uuid();

/** A KEYPAD widget with `config.locked` true holds the lock of its pin (DESIGN §5). */
function holdsLock(widget: Widget): boolean {
  return widget.type === 'KEYPAD' && widget.config.locked === true;
}

function pinName(widget: Widget): string {
  const pin = parsePin(widget.pin);
  if (!pin) throw new AppError('INVALID_PIN', `Not a pin: ${widget.pin}`);
  return pin.name;
}

/** Widgets (SPEC §4.4): viewers read; editors create, change and delete. */
export function widgetRoutes({ stores, twins, settler }: RouteDeps): Router {
  const router = Router();

  async function widgetFor(res: Response, widgetId: string, needed: Role): Promise<Widget> {
    const widget = uuid.safeParse(widgetId).success ? await stores.widgets.get(widgetId) : null;
    if (!widget) throw new AppError('WIDGET_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), widget.projectId, needed, 'WIDGET_NOT_FOUND');
    return widget;
  }

  const lock = (w: Widget) => twins.lock(w.deviceId, w.projectId, pinName(w), w.id);
  const release = (w: Widget) => twins.unlock(w.deviceId, w.projectId, pinName(w), w.id);

  /**
   * Undoes a lock that may have been taken for a widget that was then not written: the lock must
   * not outlive it. Retried in the background until the twin answers (a lock Update that timed out
   * may still be applied when Temporal catches up; the twin runs Updates one at a time in the
   * order it accepted them, so a release it accepted later is applied after it).
   * Releasing by widget id is idempotent and never touches another holder's lock; a twin that
   * refuses the release (an ending twin) holds no lock to release.
   */
  function releaseOrphan(w: Widget): void {
    settler.settle('release the lock of an unwritten widget', { widgetId: w.id, deviceId: w.deviceId, pin: w.pin }, async () => {
      await release(w).catch((err: unknown) => {
        if (!isAppError(err)) throw err;
      });
      return true;
    });
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
    const { projectId } = parseInput(listQuery, req.query, 'query');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'viewer');
    sendData(res, { widgets: await stores.widgets.list(project.id) });
  });

  router.post('/widgets', async (req, res) => {
    const body = parseInput(createWidgetBody, req.body, 'body');
    const { config } = parseInput(configOf(body.type), { config: body.config }, 'body');
    const { project } = await projectAccess(stores, userIdOf(res), body.projectId, 'editor');
    await requireProjectDevice(stores, project.id, body.deviceId);
    const now = new Date().toISOString();
    const widget: Widget = {
      id: randomUUID(),
      type: body.type,
      projectId: project.id,
      deviceId: body.deviceId,
      pin: body.pin,
      layout: body.layout,
      config,
      createdAt: now,
      updatedAt: now,
    };
    // The lock is taken first, so a twin that cannot be reached stores nothing; once it may have
    // been taken, any failure to store the widget releases it (docs/architecture.md "Nothing half-written").
    try {
      if (holdsLock(widget)) await lock(widget);
      if (!(await stores.widgets.create(widget))) throw deviceNotInProject();
    } catch (err) {
      if (holdsLock(widget)) releaseOrphan(widget);
      throw err;
    }
    sendData(res, widget, 201);
  });

  router.get('/widgets/:widgetId', async (req, res) => {
    sendData(res, await widgetFor(res, req.params.widgetId, 'viewer'));
  });

  router.patch('/widgets/:widgetId', async (req, res) => {
    const widget = await widgetFor(res, req.params.widgetId, 'editor');
    const body = parseInput(patchWidgetBody, req.body, 'body');
    const result = await stores.widgets.update(widget.id, async (current) => {
      const merged = body.config ? mergeConfig(current.config, body.config) : current.config;
      const { config } = parseInput(configOf(current.type), { config: merged }, 'body');
      const next = { ...current, layout: body.layout ?? current.layout, config, updatedAt: new Date().toISOString() };
      await followLock(current, next);
      return next;
    });
    if (result.kind !== 'replaced') {
      if (widget.type === 'KEYPAD') releaseOrphan(widget);
      throw new AppError('WIDGET_NOT_FOUND');
    }
    sendData(res, result.after);
  });

  router.delete('/widgets/:widgetId', async (req, res) => {
    const widget = await widgetFor(res, req.params.widgetId, 'editor');
    if (holdsLock(widget)) await release(widget);
    if (!(await stores.widgets.delete(widget))) throw new AppError('WIDGET_NOT_FOUND');
    sendNoContent(res);
  });

  return router;
}
