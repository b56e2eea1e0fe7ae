import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { Project, Role } from '../api/types';
import { Card, ErrorLine, useAction, useLoad } from '../ui/common';

const ASSIGNABLE: Role[] = ['admin', 'editor', 'viewer'];

export function MembersView({ project }: { project: Project }) {
  const { data, error, reload } = useLoad(() => api.members(project.id), [project.id]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [run, actionError, busy] = useAction();
  const canManage = project.role === 'owner' || project.role === 'admin';

  const add = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await api.addMember(project.id, { email, role });
      setEmail('');
      reload();
    });
  };

  return (
    <Card title="Members">
      <ErrorLine error={error} />
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Role</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data?.members.map((m) => (
              <tr key={m.userId}>
                <td>{m.name}</td>
                <td>{m.email}</td>
                <td>
                  {m.role === 'owner' || !canManage ? (
                    m.role
                  ) : (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      onChange={(e) => run(async () => (await api.setMemberRole(project.id, m.userId, e.target.value as Role), reload()))}
                    >
                      {ASSIGNABLE.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  )}
                </td>
                <td>
                  {m.role !== 'owner' && canManage && (
                    <button
                      type="button"
                      className="small danger"
                      onClick={() =>
                        confirm(`Remove ${m.email}?`) && run(async () => (await api.removeMember(project.id, m.userId), reload()))
                      }
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {canManage && (
        <form className="row" onSubmit={add}>
          <input
            type="email"
            required
            placeholder="Email of a registered user"
            aria-label="Member email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <select aria-label="Member role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ASSIGNABLE.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
          <button type="submit" disabled={busy}>
            Add member
          </button>
        </form>
      )}
      <ErrorLine error={actionError} />
    </Card>
  );
}
