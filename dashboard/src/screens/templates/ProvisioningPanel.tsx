import { useState } from 'react';
import { api } from '../../api/client';
import type { Template } from '../../api/types';
import { Card, ErrorLine, Secret, useAction } from '../../ui/common';

/**
 * A template's provisioning key (docs/provisioning.md): whether it is enabled, and for an admin or
 * the owner a new key (shown only in this answer, so only here until the page is left; any earlier
 * key stops working) or none.
 */
export function ProvisioningPanel({ template, canManage, onChange }: { template: Template; canManage: boolean; onChange: () => void }) {
  const [key, setKey] = useState<string | null>(null);
  const [run, error, busy] = useAction();
  const enabled = template.provisioning.enabled;
  const enable = () =>
    run(async () => {
      setKey((await api.enableProvisioning(template.id)).key);
      onChange();
    });
  const disable = () =>
    run(async () => {
      await api.disableProvisioning(template.id);
      setKey(null);
      onChange();
    });
  return (
    <Card title="Provisioning">
      <p data-testid="provisioning-state">
        {enabled
          ? 'Enabled: firmware flashed with this template’s key makes its own device on first boot (POST /external/api/provision).'
          : 'Disabled: devices of this template are made in the console, by the API or by an import.'}
      </p>
      {key && (
        <div className="credentials" data-testid="provisioning-key">
          <strong>Save this key now: it is shown only once. Any earlier key no longer works.</strong>
          <Secret label="Provisioning key" value={key} />
        </div>
      )}
      {canManage ? (
        <div className="row">
          <button type="button" className="primary" disabled={busy} onClick={() => void enable()}>
            {enabled ? 'Make a new key' : 'Enable provisioning'}
          </button>
          {enabled && (
            <button type="button" disabled={busy} onClick={() => void disable()}>
              Disable provisioning
            </button>
          )}
        </div>
      ) : (
        <p className="muted">A project admin or the owner manages the key; it is never shown again after it is made.</p>
      )}
      <ErrorLine error={error} />
    </Card>
  );
}
