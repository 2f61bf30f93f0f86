import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { signIn } from '../session.ts';

/** Sign in with a pasted token (from `npm run session`, or the deployment's minting command). */
export function SignInPage({ linkError }: { linkError: string | null }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(linkError);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="signin">
      <div className="signin-card">
        <div className="brand brand-large">
          <svg aria-hidden="true" viewBox="0 0 24 24" width="28" height="28">
            <path d="M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5l-8-3Z" fill="currentColor" />
          </svg>
          <span>Scan Service</span>
        </div>
        <h1>Sign in</h1>
        <p className="muted">
          Open the sign-in link that <code>npm start</code> printed, or paste a session token from <code>npm run session</code>.
        </p>
        <form onSubmit={(event) => void onSubmit(event)}>
          <label htmlFor="token">Session token</label>
          <textarea
            id="token"
            rows={4}
            value={token}
            onChange={(event) => setToken(event.target.value)}
            required
            spellCheck={false}
            autoComplete="off"
            aria-describedby={error ? 'signin-error' : undefined}
          />
          {error && (
            <p id="signin-error" className="field-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="button button-primary" disabled={busy || token.trim() === ''}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
