import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { CreatedApiKey } from '../api/types';
import { Card, ErrorLine, Secret, timeAgo, useAction, useLoad } from '../ui/common';
import { EmailVerification } from './EmailVerification';
import { QuotaUsage } from './QuotaUsage';

export function AccountScreen() {
  const me = useLoad(() => api.me(), []);
  const keys = useLoad(() => api.apiKeys(), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [run, error, busy] = useAction();

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      setCreated(await api.createApiKey({ name }));
      setName('');
      keys.reload();
      me.reload();
    });
  };

  return (
    <div className="stack">
      <h1>Account</h1>
      <Card title="Profile">
        <ErrorLine error={me.error} />
        {me.data && (
          <dl className="facts">
            <dt>Name</dt>
            <dd>{me.data.name || '—'}</dd>
            <dt>Email</dt>
            <dd>
              {me.data.email} <EmailVerification verified={me.data.emailVerified} />
            </dd>
            <dt>Plan</dt>
            <dd data-testid="plan">{me.data.plan}</dd>
          </dl>
        )}
      </Card>
      <Card title="Plan usage">
        <p className="muted">What your plan allows; a per-project quota shows your fullest project.</p>
        {me.data?.quotas && <QuotaUsage quotas={me.data.quotas} />}
      </Card>
      <Card title="API keys">
        <p className="muted">Keys authenticate the external REST interface (X-API-Key).</p>
        {created && (
          <div className="credentials">
            <strong>Copy the key now: it is shown only once.</strong>
            <Secret label={`Key ${created.name}`} value={created.key} />
            <button type="button" className="small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        )}
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Prefix</th>
              <th>Created</th>
              <th>Expires</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.data?.apiKeys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{new Date(k.createdAt).toLocaleDateString()}</td>
                <td>{k.expiresAt ? new Date(k.expiresAt).toLocaleDateString() : 'never'}</td>
                <td>{timeAgo(k.lastUsedAt)}</td>
                <td>
                  <button type="button" className="small danger" onClick={() => confirm(`Revoke ${k.name}? It stops working at once.`) && run(async () => (await api.revokeApiKey(k.id), keys.reload(), me.reload()))}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form className="row" onSubmit={create}>
          <input required maxLength={100} placeholder="Key name" aria-label="API key name" value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={busy}>
            Create API key
          </button>
        </form>
        <ErrorLine error={keys.error ?? error} />
      </Card>
    </div>
  );
}
