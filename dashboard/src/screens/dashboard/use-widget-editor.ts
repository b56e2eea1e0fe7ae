import { useCallback, useState } from 'react';
import { api } from '../../api/client';
import { errorText } from '../../api/errors';
import type { Layout, Widget } from '../../api/types';
import { widgetPinField } from '../../pins/widget-pin';
import { useAction } from '../../ui/common';
import { defaultSize, keysOf, type WidgetType } from '../../widgets/catalog';
import type { WidgetDraft } from '../../widgets/WidgetForm';
import { firstFreeSlot } from './placement';

const changed = (a: Layout, b: Layout) => a.x !== b.x || a.y !== b.y || a.w !== b.w || a.h !== b.h;

/** The config PATCH of an edit: the form's keys, and null for each key of the type it no longer sets. */
function configPatch(editing: Widget, draft: WidgetDraft): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...draft.config };
  for (const key of keysOf(editing.type as WidgetType)) if (key in editing.config && !(key in draft.config)) patch[key] = null;
  return patch;
}

/** What a new widget is bound to: one device of the project (its pick in the form), or a template's pin. */
export type WidgetOwner = { projectId: string } | { projectId: string; templateId: string };

/**
 * Adding, editing, deleting and moving the widgets of one grid, a project's or a template's: the
 * form's state, its save (a new widget goes to the first free slot), and the layout PATCHes.
 */
export function useWidgetEditor(owner: WidgetOwner, list: readonly Widget[] | undefined, reload: () => void) {
  const [editing, setEditing] = useState<Widget | 'new' | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [run, error] = useAction();

  /** Drag and resize persist: every widget whose box changed is PATCHed with its new layout. */
  const persist = (boxes: Array<{ id: string; layout: Layout }>) =>
    void run(async () => {
      const byId = new Map((list ?? []).map((w) => [w.id, w]));
      const moved = boxes.filter((b) => {
        const w = byId.get(b.id);
        return w && changed(w.layout, b.layout);
      });
      await Promise.all(moved.map((b) => api.updateWidget(b.id, { layout: b.layout })));
      if (moved.length) reload();
    });

  const save = async (draft: WidgetDraft) => {
    setFormError(null);
    try {
      if (editing && editing !== 'new') await api.updateWidget(editing.id, { config: configPatch(editing, draft) });
      else {
        const layout = firstFreeSlot(
          (list ?? []).map((w) => w.layout),
          defaultSize(draft.type),
        );
        const common = { type: draft.type, projectId: owner.projectId, pin: widgetPinField(draft.pin), layout, config: draft.config };
        await api.createWidget(
          'templateId' in owner ? { ...common, templateId: owner.templateId } : { ...common, deviceId: draft.deviceId },
        );
      }
      setEditing(null);
      reload();
    } catch (err) {
      setFormError(errorText(err));
    }
  };

  const remove = useCallback(
    (w: Widget) => {
      if (confirm('Delete this widget?')) void run(async () => (await api.deleteWidget(w.id), reload()));
    },
    [run, reload],
  );

  const open = (target: Widget | 'new') => (setFormError(null), setEditing(target));
  return { editing, open, close: () => setEditing(null), save, remove, persist, formError, error };
}
