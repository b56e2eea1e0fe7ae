import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { CreatedApiKey } from '../../api/types';
import { Card, EmptyRow, ErrorLine, Secret, timeAgo, useAction, useLoad } from '../../ui/common';
import type { PlanFacts } from './plans';

/** The account's API keys; on a plan without the external REST API the card says, before a key is made, what a key will do. */
export function ApiKeysCard({ plan, onChange }: { plan: PlanFacts; onChange: () => void }) {
  const keys = useLoad(() => api.apiKeys(), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [run, error, busy] = useAction();
  const changed = () => (keys.reload(), onChange());

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      setCreated(await api.createApiKey({ name }));
      setName('');
      changed();
    });
  };

  return (
    <Card title="API keys">
      <p className="muted">
        A key automates the management API (header <code>Authorization: Bearer dds_…</code>, with your roles) and authenticates the external
        REST API (header <code>X-API-Key</code>).
      </p>
      {!plan.externalApi && (
        <p className="notice" id="api-key-plan" data-testid="api-key-plan">
          On your {plan.name} plan a key works on the management API only: the external REST API answers it with PLAN_FEATURE_UNAVAILABLE
          until the plan is Pro or higher.
        </p>
      )}
      {created && (
        <div className="credentials">
          <strong>Copy the key now: it is shown only once.</strong>
          <Secret label={`Key ${created.name}`} value={created.key} />
          <button type="button" className="small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <div className="table-scroll">
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
                  <button
                    type="button"
                    className="small danger"
                    onClick={() =>
                      confirm(`Revoke ${k.name}? It stops working at once.`) && run(async () => (await api.revokeApiKey(k.id), changed()))
                    }
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
            {keys.data?.apiKeys.length === 0 && <EmptyRow columns={6} text="No API keys." />}
          </tbody>
        </table>
      </div>
      <form className="row" onSubmit={create}>
        <input
          required
          maxLength={100}
          placeholder="Key name"
          aria-label="API key name"
          value={name}
          aria-describedby={plan.externalApi ? undefined : 'api-key-plan'}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          Create API key
        </button>
      </form>
      <ErrorLine error={keys.error ?? error} />
    </Card>
  );
}
