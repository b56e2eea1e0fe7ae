import type { QuotaResource, Quotas } from '../api/types';
import { ProgressBar } from '../ui/ProgressBar';

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
          return (
            <tr key={resource} data-testid={`quota-${resource}`}>
              <td>{label}</td>
              <td>
                {used} / {limit ?? 'no limit'}
              </td>
              <td className="quota-bar">
                {limit !== null && (
                  <ProgressBar value={used} max={limit} label={`${label}: ${used} of ${limit} used`} full={used > 0 && used >= limit} />
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
