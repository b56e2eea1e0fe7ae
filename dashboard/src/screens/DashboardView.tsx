import { useCallback, useEffect, useMemo, useState } from 'react';
import ReactGridLayout, { useContainerWidth, type Layout as GridLayout } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import { api, errorText } from '../api/client';
import type { Project, Widget } from '../api/types';
import { recordPinValue, seedPinSeries } from '../realtime/live-values';
import { useSocket } from '../realtime/socket';
import { ErrorLine, useAction, useLoad } from '../ui/common';
import { defaultSize } from '../widgets/catalog';
import { WidgetForm, type WidgetDraft } from '../widgets/WidgetForm';
import { WidgetFrame } from '../widgets/WidgetFrame';

/** Latest values of every bound pin: on open and after each (re)connect, so nothing shown is stale. */
function useLatestValues(widgets: Widget[] | undefined, epoch: number) {
  const pins = useMemo(() => [...new Set((widgets ?? []).map((w) => `${w.deviceId}|${w.pin}`))].sort().join(','), [widgets]);
  useEffect(() => {
    if (!pins) return;
    for (const key of pins.split(',')) {
      const [deviceId, pin] = key.split('|') as [string, string];
      api.latest(deviceId, Number(pin)).then(
        (l) => recordPinValue(deviceId, Number(pin), { value: l.value, at: l.timestamp }),
        () => undefined,
      );
    }
  }, [pins, epoch]);
}

const CHART_TYPES = new Set(['GRAPH', 'SPARKLINE', 'BAR_CHART']);

/** Chart widgets open with the pin's last hour of stored points, then grow with live updates. */
function useChartHistory(widgets: Widget[] | undefined, epoch: number) {
  const pins = useMemo(
    () => [...new Set((widgets ?? []).filter((w) => CHART_TYPES.has(w.type)).map((w) => `${w.deviceId}|${w.pin}`))].sort().join(','),
    [widgets],
  );
  useEffect(() => {
    if (!pins) return;
    const to = new Date();
    const from = new Date(to.getTime() - 3600_000);
    for (const key of pins.split(',')) {
      const [deviceId, pin] = key.split('|') as [string, string];
      api.history(deviceId, Number(pin), { from: from.toISOString(), to: to.toISOString(), aggregate: 'raw', limit: 200 }).then(
        (h) => seedPinSeries(deviceId, Number(pin), h.points.map((p) => ({ value: String(p.value), at: p.timestamp }))),
        () => undefined,
      );
    }
  }, [pins, epoch]);
}

export function DashboardView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const widgets = useLoad(() => api.widgets(project.id), [project.id, epoch]);
  const devices = useLoad(() => api.devices({ projectId: project.id, limit: 100 }), [project.id, epoch]);
  const [editing, setEditing] = useState<Widget | 'new' | null>(null);
  const [run, error] = useAction();
  const [formError, setFormError] = useState<string | null>(null);
  const { width, containerRef, mounted } = useContainerWidth();
  const readOnly = project.role === 'viewer';
  const list = widgets.data?.widgets;
  useLatestValues(list, epoch);
  useChartHistory(list, epoch);

  const layout = useMemo<GridLayout>(() => (list ?? []).map((w) => ({ i: w.id, ...w.layout })), [list]);
  const deviceName = useCallback((id: string) => devices.data?.devices.find((d) => d.id === id)?.name ?? 'device', [devices.data]);

  /** Drag and resize persist: every widget whose box changed is PATCHed with its new layout. */
  const persist = (next: GridLayout) =>
    run(async () => {
      const byId = new Map((list ?? []).map((w) => [w.id, w]));
      const changed = next.filter((item) => {
        const w = byId.get(item.i);
        return w && (w.layout.x !== item.x || w.layout.y !== item.y || w.layout.w !== item.w || w.layout.h !== item.h);
      });
      await Promise.all(changed.map((item) => api.updateWidget(item.i, { layout: { x: item.x, y: item.y, w: item.w, h: item.h } })));
      if (changed.length) widgets.reload();
    });

  const save = async (draft: WidgetDraft) => {
    setFormError(null);
    try {
      if (editing && editing !== 'new') {
        const patch: Record<string, unknown> = { ...draft.config };
        for (const key of Object.keys(editing.config)) if (!(key in draft.config)) patch[key] = null;
        await api.updateWidget(editing.id, { config: patch });
      } else {
        const bottom = Math.max(0, ...(list ?? []).map((w) => w.layout.y + w.layout.h));
        await api.createWidget({ ...draft, projectId: project.id, layout: { x: 0, y: bottom, ...defaultSize(draft.type) } });
      }
      setEditing(null);
      widgets.reload();
    } catch (err) {
      setFormError(errorText(err));
    }
  };

  const remove = useCallback((w: Widget) => {
    if (confirm('Delete this widget?')) void run(async () => (await api.deleteWidget(w.id), widgets.reload()));
  }, [list, run, widgets]);

  const deviceList = devices.data?.devices ?? [];
  return (
    <div className="stack">
      <div className="row">
        {readOnly ? (
          <span className="muted" data-testid="read-only">
            Read-only dashboard (viewer)
          </span>
        ) : (
          <button type="button" className="primary" disabled={deviceList.length === 0} onClick={() => (setFormError(null), setEditing('new'))}>
            Add widget
          </button>
        )}
        {!readOnly && deviceList.length === 0 && <span className="muted">Create a device first (Devices tab).</span>}
      </div>
      {editing && (
        <WidgetForm key={editing === 'new' ? 'new' : editing.id} devices={deviceList} editing={editing === 'new' ? null : editing} onSave={save} onCancel={() => setEditing(null)} error={formError} />
      )}
      <ErrorLine error={widgets.error ?? error} />
      <div ref={containerRef} className="grid-host">
        {mounted && list && (
          <ReactGridLayout
            layout={layout}
            width={width}
            gridConfig={{ cols: 12, rowHeight: 60 }}
            dragConfig={{ enabled: !readOnly, handle: '.widget-handle', cancel: 'button' }}
            resizeConfig={{ enabled: !readOnly }}
            onDragStop={(l) => void persist(l)}
            onResizeStop={(l) => void persist(l)}
          >
            {list.map((w) => (
              <div key={w.id}>
                <WidgetFrame widget={w} deviceName={deviceName(w.deviceId)} readOnly={readOnly} onEdit={setEditing} onDelete={remove} />
              </div>
            ))}
          </ReactGridLayout>
        )}
        {list && list.length === 0 && <p className="muted">No widgets yet.</p>}
      </div>
    </div>
  );
}
