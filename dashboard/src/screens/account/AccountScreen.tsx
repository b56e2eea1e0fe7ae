import { api } from '../../api/client';
import { Card, ErrorLine, useLoad } from '../../ui/common';
import { EmailVerification } from '../EmailVerification';
import { ApiKeysCard } from './ApiKeysCard';
import { PlanCard } from './PlanCard';
import { planFacts } from './plans';

export function AccountScreen() {
  const me = useLoad(() => api.me(), []);
  const user = me.data;
  return (
    <div className="stack">
      <h1>Account</h1>
      <Card title="Profile">
        <ErrorLine error={me.error} />
        {user && (
          <dl className="facts">
            <dt>Name</dt>
            <dd>{user.name || '—'}</dd>
            <dt>Email</dt>
            <dd>
              {user.email} <EmailVerification verified={user.emailVerified} />
            </dd>
            <dt>Plan</dt>
            <dd data-testid="plan">{planFacts(user.plan).name}</dd>
          </dl>
        )}
      </Card>
      {user && <PlanCard user={user} />}
      {user && <ApiKeysCard plan={planFacts(user.plan)} onChange={me.reload} />}
    </div>
  );
}
