import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { Link, navigate } from '../router';
import { Card, ErrorLine, useAction, useLoad } from '../ui/common';

export function ProjectsScreen() {
  const { data, error, reload } = useLoad(() => api.projects(), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [run, actionError, busy] = useAction();

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const project = await api.createProject({ name, description });
      setName('');
      setDescription('');
      reload();
      navigate(`/projects/${project.id}`);
    });
  };

  return (
    <div className="stack">
      <h1>Projects</h1>
      <ErrorLine error={error} />
      <div className="grid-cards">
        {data?.projects.map((p) => (
          <Link key={p.id} to={`/projects/${p.id}`} className="card project-card">
            <strong>{p.name}</strong>
            <span className="muted">{p.description || 'No description'}</span>
            <span className="muted">
              {p.deviceCount} device{p.deviceCount === 1 ? '' : 's'} · {p.role}
            </span>
          </Link>
        ))}
        {data && data.projects.length === 0 && <p className="muted">No projects yet. Create the first one.</p>}
      </div>
      <Card title="New project">
        <form className="row" onSubmit={create}>
          <input
            placeholder="Project name"
            aria-label="Project name"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <input
            placeholder="Description"
            aria-label="Description"
            maxLength={1000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
          <button type="submit" className="primary" disabled={busy}>
            Create project
          </button>
        </form>
        <ErrorLine error={actionError} />
      </Card>
    </div>
  );
}
