import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { Project, ScopedRule } from '../../api/types';
import { useDeviceNames } from '../../devices/device-names';
import { Link } from '../../router';
import { useTemplates } from '../../templates/use-templates';
import { Card, EmptyRow, ErrorLine, useAction, useLoad } from '../../ui/common';
import { bodyOf, describe, type Draft, draftOf, emptyDraft, scopeProblem } from './rule-draft';
import { RuleForm } from './RuleForm';

/** Which devices a rule watches, in words: the device's name, the template's, the tag, or the project. */
function ScopeCell({
  rule,
  deviceName,
  templateName,
}: {
  rule: ScopedRule;
  deviceName: (id: string) => string;
  templateName: (id: string) => string;
}) {
  const scope = rule.scope ?? 'device';
  return (
    <td data-testid="rule-scope" data-scope={scope}>
      {scope === 'device' && rule.deviceId && <Link to={`/devices/${rule.deviceId}`}>{deviceName(rule.deviceId)}</Link>}
      {scope === 'template' && rule.templateId && (
        <>
          <span className="muted">template </span>
          <Link to={`/templates/${rule.templateId}`}>{templateName(rule.templateId)}</Link>
        </>
      )}
      {scope === 'tag' && (
        <>
          <span className="muted">tag </span>
          <span className="tag">{rule.tag}</span>
        </>
      )}
      {scope === 'project' && <span>every device</span>}
    </td>
  );
}

export function RulesView({ project }: { project: Project }) {
  const rules = useLoad(() => api.rules(project.id), [project.id]);
  const devices = useLoad(() => api.devices({ projectId: project.id, limit: 1 }), [project.id]);
  const { templates, nameOf } = useTemplates(project.id);
  const deviceName = useDeviceNames(
    useMemo(() => (rules.data?.rules ?? []).flatMap((r) => (r.deviceId ? [r.deviceId] : [])), [rules.data]),
  );
  const [draft, setDraft] = useState<Draft | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [run, error, busy] = useAction();
  const canEdit = project.role !== 'viewer';
  const hasDevices = (devices.data?.total ?? 0) > 0;
  const update = (change: Partial<Draft>) => setDraft((d) => (d ? { ...d, ...change } : d));
  const open = (d: Draft) => (setProblem(null), setDraft(d));

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const missing = scopeProblem(draft);
    setProblem(missing);
    if (missing) return;
    const body = bodyOf(draft);
    void run(async () => {
      if (draft.id) await api.updateRule(draft.id, body);
      else await api.createRule({ ...body, projectId: project.id });
      setDraft(null);
      rules.reload();
    });
  };

  return (
    <div className="stack">
      <Card
        title="Notification rules"
        actions={
          canEdit && (
            <button type="button" disabled={!devices.data} onClick={() => open(emptyDraft(hasDevices ? 'device' : 'project'))}>
              New rule
            </button>
          )
        }
      >
        <ErrorLine error={rules.error} />
        <div className="table-scroll">
          <table data-testid="rule-table">
            <thead>
              <tr>
                <th>Applies to</th>
                <th>When</th>
                <th>Message</th>
                <th>Channels</th>
                <th>Enabled</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.data?.rules.map((r) => (
                <tr key={r.id} data-testid="rule-row">
                  <ScopeCell rule={r} deviceName={deviceName} templateName={nameOf} />
                  <td>{describe(r)}</td>
                  <td>{r.message}</td>
                  <td>{r.channels.join(', ')}</td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label="Rule enabled"
                      checked={r.enabled}
                      disabled={!canEdit}
                      onChange={(e) => run(async () => (await api.updateRule(r.id, { enabled: e.target.checked }), rules.reload()))}
                    />
                  </td>
                  <td>
                    {canEdit && (
                      <>
                        <button type="button" className="small" onClick={() => open(draftOf(r))}>
                          Edit
                        </button>
                        <button
                          type="button"
                          className="small danger"
                          onClick={() => confirm('Delete this rule?') && run(async () => (await api.deleteRule(r.id), rules.reload()))}
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
              {rules.data?.rules.length === 0 && (
                <EmptyRow
                  columns={6}
                  text="No rules yet. A rule notifies you when a value crosses a threshold, data stops or a device goes offline: for one device, a template's devices, those with a tag, or all of them."
                />
              )}
            </tbody>
          </table>
        </div>
      </Card>
      {draft && (
        <RuleForm
          projectId={project.id}
          draft={draft}
          update={update}
          templates={templates}
          deviceName={deviceName}
          onSubmit={save}
          onCancel={() => setDraft(null)}
          busy={busy}
          problem={problem}
        />
      )}
      <ErrorLine error={error} />
    </div>
  );
}
