import type { User } from '../../api/types';
import { Card } from '../../ui/common';
import { QuotaUsage } from '../QuotaUsage';
import { planFacts, rateText } from './plans';

/** The plan, what it includes and its quotas with their use. */
export function PlanCard({ user }: { user: User }) {
  const facts = planFacts(user.plan);
  return (
    <Card title={`Plan: ${facts.name}`}>
      <ul className="plan-facts" data-testid="plan-facts">
        <li>Web console, management API (also with an API key), MQTT and live dashboards: included.</li>
        <li>
          External REST API (API keys) and simple API (device tokens):{' '}
          {facts.externalApi ? <strong>included, {rateText(facts)}.</strong> : <strong>not included; they need Pro or higher.</strong>}
        </li>
      </ul>
      <p className="muted">Quotas of the plan; a per-project quota shows your fullest project.</p>
      {user.quotas && <QuotaUsage quotas={user.quotas} />}
    </Card>
  );
}
