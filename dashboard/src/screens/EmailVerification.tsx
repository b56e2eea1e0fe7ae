import { useState } from 'react';
import { api } from '../api/client';
import { ErrorLine, useAction } from '../ui/common';

/** The account's email status, and the button that mails a verify link (notification email goes only to verified addresses). */
export function EmailVerification({ verified }: { verified: boolean }) {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [run, error, busy] = useAction();
  if (verified) return <span data-testid="email-verified">verified</span>;
  return (
    <div data-testid="email-unverified">
      <span className="muted">not verified: no notification email reaches it.</span>{' '}
      {sentTo ? (
        <span role="status">Link sent to {sentTo}; open it to verify.</span>
      ) : (
        <button
          type="button"
          className="small"
          disabled={busy}
          onClick={() => run(async () => setSentTo((await api.requestEmailVerification()).email))}
        >
          Verify your email
        </button>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
