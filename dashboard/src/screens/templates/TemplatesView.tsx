import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import { errorText } from '../../api/errors';
import type { Project, Template, TemplateBody } from '../../api/types';
import { useSocket } from '../../realtime/socket';
import { Link } from '../../router';
import { useTemplates } from '../../templates/use-templates';
import { Card, EmptyRow, ErrorLine, useAction } from '../../ui/common';
import { TemplateForm } from './TemplateForm';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Why a template could not be deleted, in words: a 409 names how many devices still use it. */
async function deleteProblem(projectId: string, template: Template, err: unknown): Promise<string> {
  if (!(err instanceof ApiError) || err.status !== 409) return errorText(err);
  const using = await api.devices({ projectId, templateId: template.id, limit: 1 }).then(
    (l) => l.total,
    () => template.deviceCount,
  );
  return (
    `${template.name} is still used by ${plural(using, 'device')}: give ${using === 1 ? 'it' : 'them'} another template ` +
    `(or none) on the device page first, then delete it (${err.code})`
  );
}

/** A project's templates: the list with pins and device counts, create, edit and delete. */
export function TemplatesView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const { templates, error, reload } = useTemplates(project.id, epoch);
  const [editing, setEditing] = useState<Template | 'new' | null>(null);
  const [run, saveError, busy] = useAction();
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const canEdit = project.role !== 'viewer';

  const save = (body: TemplateBody) =>
    run(async () => {
      if (editing && editing !== 'new') await api.updateTemplate(editing.id, body);
      else await api.createTemplate({ ...body, projectId: project.id });
      setEditing(null);
      reload();
    });

  const remove = async (t: Template) => {
    if (!confirm(`Delete the template ${t.name} with its dashboard and the rules that watch its devices?`)) return;
    setDeleteError(null);
    try {
      await api.deleteTemplate(t.id);
      reload();
    } catch (err) {
      setDeleteError(await deleteProblem(project.id, t, err));
    }
  };

  return (
    <div className="stack">
      <Card
        title={`Templates (${templates?.length ?? 0})`}
        actions={
          canEdit && (
            <button type="button" onClick={() => setEditing('new')}>
              New template
            </button>
          )
        }
      >
        <p className="muted">
          A template says what a kind of device sends (its pins), how soon it counts as offline, and gives all its devices one dashboard.
        </p>
        <ErrorLine error={error} />
        <div className="table-scroll">
          <table data-testid="template-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Pins</th>
                <th>Heartbeat</th>
                <th>Devices</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {templates?.map((t) => (
                <tr key={t.id} data-testid="template-row" data-template-id={t.id}>
                  <td>
                    <Link to={`/templates/${t.id}`}>{t.name}</Link>
                    {t.description && <div className="muted">{t.description}</div>}
                  </td>
                  <td>
                    {t.pins.map((p) => (
                      <span key={p.pin} className="tag" title={`${p.dataType}${p.unit ? `, ${p.unit}` : ''}`}>
                        {p.pin} {p.name}
                      </span>
                    ))}
                    {t.pins.length === 0 && <span className="muted">none</span>}
                  </td>
                  <td>{t.heartbeatTimeoutS === null ? <span className="muted">default</span> : `${t.heartbeatTimeoutS} s`}</td>
                  <td data-testid="template-devices">
                    <Link to={`/projects/${project.id}/devices?templateId=${t.id}`}>{plural(t.deviceCount, 'device')}</Link>
                  </td>
                  <td>
                    <Link to={`/templates/${t.id}`} className="small">
                      Dashboard
                    </Link>{' '}
                    {canEdit && (
                      <>
                        <button type="button" className="small" onClick={() => setEditing(t)}>
                          Edit
                        </button>
                        <button type="button" className="small danger" onClick={() => void remove(t)}>
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
              {templates?.length === 0 && (
                <EmptyRow
                  columns={5}
                  text={canEdit ? 'No templates yet. Make one for each kind of device you run.' : 'No templates yet.'}
                />
              )}
            </tbody>
          </table>
        </div>
        <ErrorLine error={deleteError} />
      </Card>
      {editing && (
        <TemplateForm
          key={editing === 'new' ? 'new' : editing.id}
          editing={editing === 'new' ? null : editing}
          onSave={save}
          onCancel={() => setEditing(null)}
          error={saveError}
          busy={busy}
        />
      )}
    </div>
  );
}
