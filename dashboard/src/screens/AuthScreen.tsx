import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { Link } from '../router';
import { useSession } from '../session';
import { ErrorLine, useAction } from '../ui/common';

export function AuthScreen({ mode }: { mode: 'signin' | 'signup' }) {
  const { signIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [run, error, busy] = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const session =
        mode === 'signup' ? await api.register({ email, password, name: name || undefined }) : await api.login({ email, password });
      signIn(session);
    });
  };

  return (
    <div className="auth">
      <form className="card" onSubmit={submit}>
        <h1>{mode === 'signup' ? 'Create your account' : 'Sign in'}</h1>
        {mode === 'signup' && (
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
          </label>
        )}
        <label>
          Email
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" />
        </label>
        <label>
          Password
          <input
            type="password"
            required
            minLength={8}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
          />
        </label>
        <ErrorLine error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {mode === 'signup' ? 'Sign up' : 'Sign in'}
        </button>
        <p className="muted">
          {mode === 'signup' ? (
            <>
              Have an account? <Link to="/signin">Sign in</Link>
            </>
          ) : (
            <>
              New here? <Link to="/signup">Create an account</Link>
            </>
          )}
        </p>
      </form>
    </div>
  );
}
