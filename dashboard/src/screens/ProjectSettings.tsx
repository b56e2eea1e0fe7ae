import { useState } from 'react';
import { api } from '../api/client';
import type { Project } from '../api/types';
import { navigate } from '../router';
import { Card, ErrorLine, useAction } from '../ui/common';

export function ProjectSettings({ project, onChange }: { project: Project; onChange: () => void }) {
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description);
  const [confirm, setConfirm] = useState('');
  const [run, error, busy] = useAction();
  const canEdit = project.role === 'owner' || project.role === 'admin';

  return (
    <div className="stack">
      <Card title="Rename">
        <div className="row">
          <input aria-label="Project name" value={name} maxLength={100} disabled={!canEdit} onChange={(e) => setName(e.target.value)} />
          <input
            aria-label="Description"
            value={description}
            maxLength={1000}
            disabled={!canEdit}
            onChange={(e) => setDescription(e.target.value)}
          />
          <button
            type="button"
            disabled={!canEdit || busy}
            onClick={() => run(async () => (await api.updateProject(project.id, { name, description }), onChange()))}
          >
            Save
          </button>
        </div>
      </Card>
      {project.role === 'owner' && (
        <Card title="Delete project">
          <p className="muted">
            Deletes every device, its data and credentials, widgets, rules and notifications. Type the project name to confirm.
          </p>
          <div className="row">
            <input
              aria-label="Confirm project name"
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
              placeholder={project.name}
            />
            <button
              type="button"
              className="danger"
              disabled={confirm !== project.name || busy}
              onClick={() => run(async () => (await api.deleteProject(project.id), navigate('/projects')))}
            >
              Delete project
            </button>
          </div>
        </Card>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
