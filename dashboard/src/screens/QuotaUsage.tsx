import type { QuotaResource, Quotas } from '../api/types';

/** The quotas in the order the account screen lists them, with their labels (docs/limits.md "Quotas"). */
const ROWS: [QuotaResource, string][] = [
  ['projects', 'Projects'],
  ['devices', 'Devices (all your projects)'],
  ['members', 'Members per project'],
  ['rules', 'Rules per project'],
  ['widgets', 'Widgets per project'],
  ['templates', 'Templates per project'],
  ['apiKeys', 'API keys'],
];

/** Each quota of the user's plan, used / limit; a per-project quota shows the fullest own project. */
export function QuotaUsage({ quotas }: { quotas: Quotas }) {
  return (
    <table data-testid="quotas">
      <thead>
        <tr>
          <th>Resource</th>
          <th>Used / limit</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {ROWS.map(([resource, label]) => {
          const { limit, used } = quotas[resource];
          const share = limit === null ? 0 : Math.min(1, used / limit);
          return (
            <tr key={resource} data-testid={`quota-${resource}`}>
              <td>{label}</td>
              <td>
                {used} / {limit ?? 'no limit'}
              </td>
              <td className="quota-bar">
                {limit !== null && (
                  <div
                    className="progress"
                    role="progressbar"
                    aria-label={`${label}: ${used} of ${limit} used`}
                    aria-valuemin={0}
                    aria-valuemax={limit}
                    aria-valuenow={Math.min(used, limit)}
                  >
                    <div className={share >= 1 ? 'bar full' : 'bar'} style={{ width: `${share * 100}%` }} />
                  </div>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
