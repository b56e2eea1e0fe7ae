import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { Device, Template } from '../../api/types';
import { TemplateSelect } from '../../templates/TemplateSelect';
import { ErrorLine, useAction } from '../../ui/common';
import { HEARTBEAT_MAX_S, HEARTBEAT_MIN_S } from '../templates/template-draft';
import { heartbeatOf, templateHeartbeatHint } from '../device/DeviceEditor';
import { parseTags } from './tags';

/** Creates a device: its name, tags, template and, when it needs one, its own heartbeat timeout. */
export function CreateDeviceForm(props: { projectId: string; templates: readonly Template[] | undefined; onCreated: (d: Device) => void }) {
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [heartbeat, setHeartbeat] = useState('');
  const [run, error, busy] = useAction();

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const device = await api.createDevice({
        name,
        projectId: props.projectId,
        tags: parseTags(tags),
        // Sent only when set, so a create reads as before for a project without templates.
        ...(templateId ? { templateId } : {}),
        ...(heartbeat.trim() ? { heartbeatTimeoutS: heartbeatOf(heartbeat) } : {}),
      });
      props.onCreated(device);
      setName('');
      setTags('');
      setHeartbeat('');
    });
  };

  return (
    <>
      <form className="row" onSubmit={create}>
        <input
          required
          maxLength={100}
          placeholder="Device name"
          aria-label="Device name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <input placeholder="Tags, comma separated" aria-label="Device tags" value={tags} onChange={(e) => setTags(e.target.value)} />
        {(props.templates?.length ?? 0) > 0 && (
          <TemplateSelect templates={props.templates} value={templateId} onChange={setTemplateId} ariaLabel="New device template" />
        )}
        <input
          aria-label="New device heartbeat"
          type="number"
          min={HEARTBEAT_MIN_S}
          max={HEARTBEAT_MAX_S}
          step={1}
          placeholder={templateHeartbeatHint(props.templates, templateId)}
          title="Seconds without a message before the device counts as offline; empty: the template's, else the service's default"
          value={heartbeat}
          onChange={(e) => setHeartbeat(e.target.value)}
        />
        <button type="submit" className="primary" disabled={busy}>
          Create device
        </button>
      </form>
      <ErrorLine error={error} />
    </>
  );
}
