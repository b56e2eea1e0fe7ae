import { api } from '../../api/client';
import { Card, ErrorLine, Secret, useAction, useLoad } from '../../ui/common';

/** A device's simple-interface switch and its `iot_` token (DESIGN §2); the interface itself needs Pro or higher. */
export function SimpleApiCard({ deviceId, planAllows }: { deviceId: string; planAllows: boolean }) {
  const settings = useLoad(() => api.simpleApi(deviceId), [deviceId]);
  const [run, error, busy] = useAction();
  const s = settings.data;
  return (
    <Card title="Simple API">
      {!planAllows && (
        <p className="notice" data-testid="simple-api-plan">
          The simple API (<code>/external/api/…?token=</code>) answers on Pro plans and higher. You can switch it on now; calls work once
          the project owner's plan includes it.
        </p>
      )}
      {s && (
        <>
          <label className="inline">
            <input
              type="checkbox"
              checked={s.enabled}
              disabled={busy}
              onChange={(e) => run(async () => (await api.setSimpleApi(deviceId, e.target.checked), settings.reload()))}
            />
            Enabled (GET /external/api/update?token=…)
          </label>
          {s.token && <Secret label="iot_ token" value={s.token} />}
          {s.token && (
            <button
              type="button"
              className="small"
              disabled={busy}
              onClick={() =>
                confirm('The old iot_ token stops working at once. Regenerate?') &&
                run(async () => (await api.regenerateSimpleToken(deviceId), settings.reload()))
              }
            >
              Regenerate iot_ token
            </button>
          )}
        </>
      )}
      <ErrorLine error={settings.error ?? error} />
    </Card>
  );
}
