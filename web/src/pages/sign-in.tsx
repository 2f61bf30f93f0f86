import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { signIn } from '../session.ts';

/** Sign in with a pasted token (from `npm run session`, or the deployment's minting command). */
export function SignInPage({ linkError }: { linkError: string | null }) {
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
        <TokenForm initialError={linkError} />
      </div>
    </main>
  );
}

/**
 * The session-token form: the sign-in page's, and the expired-session dialog's (which keeps the
 * page under it, so nothing typed there is lost).
 */
export function TokenForm({ initialError = null, id = 'token' }: { initialError?: string | null; id?: string }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(initialError);
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
    <form onSubmit={(event) => void onSubmit(event)}>
      <label htmlFor={id}>Session token</label>
      <textarea
        id={id}
        rows={4}
        value={token}
        onChange={(event) => setToken(event.target.value)}
        required
        spellCheck={false}
        autoComplete="off"
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="button button-primary" disabled={busy || token.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

/**
 * Over the page when its session expired: what was typed stays beneath, and signing in again
 * (a pasted token) closes it, so the form can be sent again.
 */
export function SessionExpiredDialog({ onSignOut }: { onSignOut: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (ref.current && !ref.current.open) ref.current.showModal();
  }, []);
  return (
    // Escape does not close it: without a session nothing on the page would work.
    <dialog ref={ref} className="dialog" aria-labelledby="expired-title" onCancel={(event) => event.preventDefault()}>
      <h2 id="expired-title">Your session expired</h2>
      <p>
        Sign in again to carry on: what you typed on this page stays. Paste a session token from <code>npm run session</code> (a new sign-in
        link would open a fresh page).
      </p>
      <TokenForm id="expired-token" />
      <p>
        <button type="button" className="link-button" onClick={onSignOut}>
          Sign out instead
        </button>
      </p>
    </dialog>
  );
}
