import { useCallback, useMemo, useState } from 'react';
import { api } from '../../api/client';
import { errorText } from '../../api/errors';
import type { Layout, Project, Widget } from '../../api/types';
import { widgetPinField } from '../../pins/widget-pin';
import { useDeviceNames } from '../../devices/device-names';
import { useDeviceSnapshots } from '../../realtime/snapshots';
import { useSocket } from '../../realtime/socket';
import { Link } from '../../router';
import { ErrorLine, useAction, useLoad } from '../../ui/common';
import { defaultSize, keysOf, type WidgetType } from '../../widgets/catalog';
import { WidgetForm, type WidgetDraft } from '../../widgets/WidgetForm';
import { DashboardGrid } from './DashboardGrid';
import { firstFreeSlot } from './placement';
import { useChartHistory } from './use-chart-history';

const changed = (a: Layout, b: Layout) => a.x !== b.x || a.y !== b.y || a.w !== b.w || a.h !== b.h;

/** The config PATCH of an edit: the form's keys, and null for each key of the type it no longer sets. */
function configPatch(editing: Widget, draft: WidgetDraft): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...draft.config };
  for (const key of keysOf(editing.type as WidgetType)) if (key in editing.config && !(key in draft.config)) patch[key] = null;
  return patch;
}

export function DashboardView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const widgets = useLoad(() => api.widgets(project.id), [project.id, epoch]);
  const devices = useLoad(() => api.devices({ projectId: project.id, limit: 1 }), [project.id, epoch]);
  const [editing, setEditing] = useState<Widget | 'new' | null>(null);
  const [run, error] = useAction();
  const [formError, setFormError] = useState<string | null>(null);
  const readOnly = project.role === 'viewer';
  const list = widgets.data?.widgets;
  const boundDevices = useMemo(() => [...new Set((list ?? []).map((w) => w.deviceId))], [list]);
  const snapshots = useDeviceSnapshots(boundDevices);
  const synced = list !== undefined && boundDevices.every((id) => snapshots.has(id));
  useChartHistory(list, epoch);

  const deviceName = useDeviceNames(boundDevices, epoch);

  /** Drag and resize persist: every widget whose box changed is PATCHed with its new layout. */
  const persist = (boxes: Array<{ id: string; layout: Layout }>) =>
    void run(async () => {
      const byId = new Map((list ?? []).map((w) => [w.id, w]));
      const moved = boxes.filter((b) => {
        const w = byId.get(b.id);
        return w && changed(w.layout, b.layout);
      });
      await Promise.all(moved.map((b) => api.updateWidget(b.id, { layout: b.layout })));
      if (moved.length) widgets.reload();
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
        await api.createWidget({
          type: draft.type,
          deviceId: draft.deviceId,
          projectId: project.id,
          pin: widgetPinField(draft.pin),
          layout,
          config: draft.config,
        });
      }
      setEditing(null);
      widgets.reload();
    } catch (err) {
      setFormError(errorText(err));
    }
  };

  const remove = useCallback(
    (w: Widget) => {
      if (confirm('Delete this widget?')) void run(async () => (await api.deleteWidget(w.id), widgets.reload()));
    },
    [run, widgets],
  );

  const noDevices = devices.data?.total === 0;
  return (
    <div className="stack" data-testid="dashboard" data-live={synced ? 'synced' : 'syncing'}>
      <div className="row">
        {readOnly ? (
          <span className="muted" data-testid="read-only">
            Read-only dashboard (viewer)
          </span>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={!devices.data || noDevices}
            onClick={() => (setFormError(null), setEditing('new'))}
          >
            Add widget
          </button>
        )}
        {!readOnly && noDevices && (
          <span className="muted">
            Widgets show a device's pins: <Link to={`/projects/${project.id}/devices`}>create a device</Link> first.
          </span>
        )}
      </div>
      {editing && (
        <WidgetForm
          key={editing === 'new' ? 'new' : editing.id}
          projectId={project.id}
          deviceName={deviceName}
          editing={editing === 'new' ? null : editing}
          onSave={save}
          onCancel={() => setEditing(null)}
          error={formError}
        />
      )}
      <ErrorLine error={widgets.error ?? error} />
      {list && list.length > 0 && (
        <DashboardGrid
          widgets={list}
          readOnly={readOnly}
          deviceName={deviceName}
          onEdit={setEditing}
          onDelete={remove}
          onLayout={persist}
        />
      )}
      {list && list.length === 0 && (
        <p className="empty" data-testid="empty-dashboard">
          No widgets yet.{readOnly ? '' : ' Add one to show a pin live: a gauge, a switch, a chart…'}
        </p>
      )}
    </div>
  );
}
