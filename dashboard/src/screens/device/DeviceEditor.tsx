import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import type { Device, Template } from '../../api/types';
import { TemplateSelect } from '../../templates/TemplateSelect';
import { ErrorLine, useAction } from '../../ui/common';
import { HEARTBEAT_MAX_S, HEARTBEAT_MIN_S } from '../templates/template-draft';
import { parseTags } from '../devices/tags';

/** A heartbeat field: null when empty (the template's, else the default), else whole seconds. */
export const heartbeatOf = (text: string): number | null => (text.trim() === '' ? null : Number(text));

/** Edits a device's name, tags, template and own heartbeat timeout. */
export function DeviceEditor({
  device,
  templates,
  onSaved,
}: {
  device: Device;
  templates: readonly Template[] | undefined;
  onSaved: () => void;
}) {
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [heartbeat, setHeartbeat] = useState('');
  const [run, error, busy] = useAction();

  useEffect(() => {
    setName(device.name);
    setTags(device.tags.join(', '));
    setTemplateId(device.templateId ?? '');
    setHeartbeat(device.heartbeatTimeoutS === null || device.heartbeatTimeoutS === undefined ? '' : String(device.heartbeatTimeoutS));
  }, [device]);

  const save = () =>
    run(async () => {
      await api.updateDevice(device.id, {
        name,
        tags: parseTags(tags),
        templateId: templateId || null,
        heartbeatTimeoutS: heartbeatOf(heartbeat),
      });
      onSaved();
    });

  return (
    <>
      <div className="row">
        <input aria-label="Device name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
        <input aria-label="Device tags" value={tags} placeholder="Tags, comma separated" onChange={(e) => setTags(e.target.value)} />
        <TemplateSelect templates={templates} value={templateId} onChange={setTemplateId} ariaLabel="Device template" />
        <input
          aria-label="Heartbeat override"
          type="number"
          min={HEARTBEAT_MIN_S}
          max={HEARTBEAT_MAX_S}
          step={1}
          placeholder={templateHeartbeatHint(templates, templateId)}
          title="Seconds without a message before the device counts as offline; empty: the template's, else the service's default"
          value={heartbeat}
          onChange={(e) => setHeartbeat(e.target.value)}
        />
        <button type="button" disabled={busy} onClick={save}>
          Save
        </button>
      </div>
      <ErrorLine error={error} />
    </>
  );
}

/** What an empty heartbeat field means for the template chosen: its timeout, else the default. */
export function templateHeartbeatHint(templates: readonly Template[] | undefined, templateId: string): string {
  const own = templates?.find((t) => t.id === templateId)?.heartbeatTimeoutS;
  return own ? `Heartbeat s (template: ${own})` : 'Heartbeat s (default)';
}
