import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { errorText } from '../api/errors';
import { Link } from '../router';

/** Where the verify link lands (`/verify-email?token=…`): verifies with the token, signed in or not. */
export function VerifyEmailScreen() {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    const token = new URLSearchParams(location.search).get('token') ?? '';
    api
      .verifyEmail(token)
      .then((user) => setOutcome({ ok: true, text: `${user.email} is verified: notification email can reach it now.` }))
      .catch((err: unknown) => setOutcome({ ok: false, text: errorText(err) }));
  }, []);
  return (
    <div className="auth">
      <div className="card">
        <h1>Verify your email</h1>
        <p role="status" data-testid="verify-outcome" className={outcome && !outcome.ok ? 'error' : undefined}>
          {outcome ? outcome.text : 'Verifying…'}
        </p>
        <p className="muted">
          <Link to="/account">Go to your account</Link>
        </p>
      </div>
    </div>
  );
}
