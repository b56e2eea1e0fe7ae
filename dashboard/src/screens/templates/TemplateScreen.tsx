import { useCallback, useMemo, useState } from 'react';
import { api } from '../../api/client';
import type { DeviceWidget } from '../../api/types';
import { useDeviceNames } from '../../devices/device-names';
import { useDeviceSnapshots } from '../../realtime/snapshots';
import { useRoom, useSocket } from '../../realtime/socket';
import { Link } from '../../router';
import { ErrorLine, useLoad } from '../../ui/common';
import { DevicePicker } from '../../ui/DevicePicker';
import { WidgetForm } from '../../widgets/WidgetForm';
import { DashboardGrid } from '../dashboard/DashboardGrid';
import { useChartHistory } from '../dashboard/use-chart-history';
import { useWidgetEditor } from '../dashboard/use-widget-editor';
import { NotFound } from '../NotFound';
import { ProvisioningPanel } from './ProvisioningPanel';

const NONE: readonly string[] = [];

/** The device a link asked for (`/templates/{id}?device={deviceId}`), else none yet (the picker takes the first). */
const linkedDevice = (): string => new URLSearchParams(location.search).get('device') ?? '';

/**
 * A template's dashboard: its widgets are bound to the template's pins, designed once, and show
 * the values of whichever of its devices is picked (live, like a device's own dashboard).
 */
export function TemplateScreen({ templateId }: { templateId: string }) {
  const { epoch } = useSocket();
  const template = useLoad(() => api.template(templateId), [templateId, epoch]);
  const projectId = template.data?.projectId;
  const project = useLoad(async () => (projectId ? api.project(projectId) : undefined), [projectId]);
  const widgets = useLoad(() => api.widgets({ templateId }), [templateId, epoch]);
  const [deviceId, setDeviceId] = useState(linkedDevice);
  const pick = useCallback((id: string) => {
    setDeviceId(id);
    history.replaceState(null, '', `${location.pathname}?device=${encodeURIComponent(id)}`);
  }, []);
  useRoom(deviceId ? { deviceId } : null);
  const list = widgets.data?.widgets;
  const shown = useMemo<DeviceWidget[] | undefined>(() => list?.map((w) => ({ ...w, deviceId })), [list, deviceId]);
  const devices = useMemo(() => (deviceId ? [deviceId] : NONE), [deviceId]);
  const snapshots = useDeviceSnapshots(devices);
  useChartHistory(deviceId ? shown : undefined, epoch);
  const deviceName = useDeviceNames(devices, epoch);
  const editor = useWidgetEditor({ projectId: projectId ?? '', templateId }, list, widgets.reload);

  if (template.notFound) return <NotFound what="template" />;
  if (template.error) return <ErrorLine error={template.error} />;
  const t = template.data;
  if (!t) return <p className="muted">Loading…</p>;
  const readOnly = project.data?.role !== 'editor' && project.data?.role !== 'admin' && project.data?.role !== 'owner';
  const { editing } = editor;
  const synced = shown !== undefined && (!deviceId || snapshots.has(deviceId));

  return (
    <div className="stack" data-testid="template-dashboard" data-device={deviceId} data-live={synced ? 'synced' : 'syncing'}>
      <p>
        <Link to={`/projects/${t.projectId}/templates`}>← {project.data?.name ?? 'Project'}: templates</Link>
      </p>
      <div className="title-row">
        <h1>{t.name}</h1>
        <span className="muted">template dashboard · {t.deviceCount === 1 ? '1 device' : `${t.deviceCount} devices`}</span>
      </div>
      <div className="row bottom">
        <DevicePicker
          projectId={t.projectId}
          templateId={t.id}
          value={deviceId}
          onChange={pick}
          label="Show device"
          ariaLabel="Show device"
        />
        {deviceId && <Link to={`/devices/${deviceId}`}>Open {deviceName(deviceId)}</Link>}
        {!readOnly && (
          <button type="button" className="primary" onClick={() => editor.open('new')}>
            Add widget
          </button>
        )}
      </div>
      <ProvisioningPanel
        template={t}
        canManage={project.data?.role === 'admin' || project.data?.role === 'owner'}
        onChange={template.reload}
      />
      {t.deviceCount === 0 && !deviceId && (
        <p className="muted" data-testid="no-template-devices">
          No device uses this template yet. Design the dashboard now; pick a device here once one has the template (Devices tab).
        </p>
      )}
      {editing && (
        <WidgetForm
          key={editing === 'new' ? 'new' : editing.id}
          projectId={t.projectId}
          template={t}
          deviceName={deviceName}
          editing={editing === 'new' ? null : editing}
          onSave={editor.save}
          onCancel={editor.close}
          error={editor.formError}
        />
      )}
      <ErrorLine error={widgets.error ?? editor.error} />
      {shown && shown.length > 0 && (
        <DashboardGrid
          widgets={shown}
          readOnly={readOnly}
          deviceName={deviceName}
          onEdit={editor.open}
          onDelete={editor.remove}
          onLayout={editor.persist}
        />
      )}
      {shown?.length === 0 && (
        <p className="empty" data-testid="empty-dashboard">
          No widgets yet.{readOnly ? '' : ' Add one on a pin of the template: every device of the template shows it.'}
        </p>
      )}
    </div>
  );
}
