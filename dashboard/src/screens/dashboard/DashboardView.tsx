import { useMemo } from 'react';
import { api } from '../../api/client';
import { isDeviceWidget, type Project } from '../../api/types';
import { useDeviceNames } from '../../devices/device-names';
import { useDeviceSnapshots } from '../../realtime/snapshots';
import { useSocket } from '../../realtime/socket';
import { Link } from '../../router';
import { ErrorLine, useLoad } from '../../ui/common';
import { WidgetForm } from '../../widgets/WidgetForm';
import { DashboardGrid } from './DashboardGrid';
import { useChartHistory } from './use-chart-history';
import { useWidgetEditor } from './use-widget-editor';

export function DashboardView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const widgets = useLoad(() => api.widgets({ projectId: project.id }), [project.id, epoch]);
  const devices = useLoad(() => api.devices({ projectId: project.id, limit: 1 }), [project.id, epoch]);
  const readOnly = project.role === 'viewer';
  // A template's widgets have their own dashboard (the template's, for any of its devices).
  const list = useMemo(() => widgets.data?.widgets.filter(isDeviceWidget), [widgets.data]);
  const editor = useWidgetEditor({ projectId: project.id }, list, widgets.reload);
  const boundDevices = useMemo(() => [...new Set((list ?? []).map((w) => w.deviceId))], [list]);
  const snapshots = useDeviceSnapshots(boundDevices);
  const synced = list !== undefined && boundDevices.every((id) => snapshots.has(id));
  useChartHistory(list, epoch);

  const deviceName = useDeviceNames(boundDevices, epoch);
  const { editing } = editor;

  const noDevices = devices.data?.total === 0;
  return (
    <div className="stack" data-testid="dashboard" data-live={synced ? 'synced' : 'syncing'}>
      <div className="row">
        {readOnly ? (
          <span className="muted" data-testid="read-only">
            Read-only dashboard (viewer)
          </span>
        ) : (
          <button type="button" className="primary" disabled={!devices.data || noDevices} onClick={() => editor.open('new')}>
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
          onSave={editor.save}
          onCancel={editor.close}
          error={editor.formError}
        />
      )}
      <ErrorLine error={widgets.error ?? editor.error} />
      {list && list.length > 0 && (
        <DashboardGrid
          widgets={list}
          readOnly={readOnly}
          deviceName={deviceName}
          onEdit={editor.open}
          onDelete={editor.remove}
          onLayout={editor.persist}
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
