import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorState, Loading } from './components.tsx';
import { HomePage } from './pages/home.tsx';
import { IssuePage } from './pages/issue.tsx';
import { IssuesPage } from './pages/issues.tsx';
import { ScanPage } from './pages/scan.tsx';
import { ScansPage } from './pages/scans.tsx';
import { ScheduleHistoryPage } from './pages/schedule-history.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SessionExpiredDialog, SignInPage } from './pages/sign-in.tsx';
import { SESSION_EXPIRED_EVENT } from './api.ts';
import { Link, useRouter } from './router.tsx';
import { signInWithCode, signOut, useMe } from './session.ts';
import { isUiRoute } from './ui-routes.ts';

/** The code of a one-time sign-in link (`/#code=…`), read once and removed from the address bar. */
function takeFragmentCode(): string | null {
  const match = /^#code=([A-Za-z0-9_-]+)$/.exec(window.location.hash);
  if (!match) return null;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return match[1];
}

export function App() {
  const queryClient = useQueryClient();
  const [fragmentCode] = useState(takeFragmentCode);
  const [linkError, setLinkError] = useState<string | null>(null);
  const [exchanging, setExchanging] = useState(fragmentCode !== null);
  const started = useRef(false);

  useEffect(() => {
    if (fragmentCode === null || started.current) return;
    started.current = true;
    signInWithCode(fragmentCode)
      .then(() => queryClient.removeQueries({ queryKey: ['me'] }))
      .catch((error: unknown) => setLinkError(error instanceof Error ? error.message : String(error)))
      .finally(() => setExchanging(false));
  }, [fragmentCode, queryClient]);

  // A call refused as unauthenticated: ask again who this is (an expired session shows its dialog).
  useEffect(() => {
    const onExpired = () => void queryClient.invalidateQueries({ queryKey: ['me'] });
    window.addEventListener(SESSION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED_EVENT, onExpired);
  }, [queryClient]);

  const me = useMe(!exchanging);
  if (exchanging || me.isPending) return <Loading label="Signing in…" />;
  if (me.isError) return <ErrorState error={me.error} retry={() => void me.refetch()} />;
  if (me.data === null) return <SignInPage linkError={linkError} />;
  return <Shell />;
}

const NAV = [
  { to: '/', label: 'Scan', match: (path: string) => path === '/' },
  { to: '/scans', label: 'Scans', match: (path: string) => path.startsWith('/scans') },
  { to: '/issues', label: 'Issues', match: (path: string) => path.startsWith('/issues') },
  { to: '/settings/scheduled-scans', label: 'Settings', match: (path: string) => path.startsWith('/settings') },
];

function Shell() {
  const { path, navigate } = useRouter();
  const me = useMe().data!;
  const queryClient = useQueryClient();
  const mainRef = useRef<HTMLElement>(null);

  useEffect(() => {
    if (path === '/sign-in') navigate('/', { replace: true });
    // Findings became Issues (DESIGN §15): an old link lands on the issues.
    if (path === '/findings') navigate('/issues', { replace: true });
  }, [path, navigate]);

  async function onSignOut() {
    await signOut();
    // Nobody is signed in: show the sign-in page and forget every answer of the old session.
    queryClient.setQueryData(['me'], null);
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'me' });
    navigate('/sign-in', { replace: true });
  }

  let page;
  const scan = /^\/scans\/([A-Za-z0-9_-]+)$/.exec(path);
  const history = /^\/settings\/scheduled-scans\/([A-Za-z0-9_-]+)$/.exec(path);
  const issue = /^\/issues\/(iss_[0-9a-f]{32})$/.exec(path);
  if (path === '/') page = <HomePage />;
  else if (path === '/scans') page = <ScansPage />;
  else if (scan) page = <ScanPage id={scan[1]} />;
  else if (path === '/issues') page = <IssuesPage />;
  else if (issue) page = <IssuePage id={issue[1]} />;
  else if (history) page = <ScheduleHistoryPage id={history[1]} />;
  else if (path.startsWith('/settings')) page = <SettingsPage />;
  else if (!isUiRoute(path)) page = <NotFound />;

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand" aria-label="Scan Service home">
            <svg aria-hidden="true" viewBox="0 0 24 24" width="22" height="22">
              <path d="M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5l-8-3Z" fill="currentColor" />
            </svg>
            <span>Scan Service</span>
          </Link>
          <nav aria-label="Main" className="nav">
            {NAV.map((item) => (
              <Link key={item.to} to={item.to} className="nav-link" aria-current={item.match(path) ? 'page' : undefined}>
                {item.label}
              </Link>
            ))}
          </nav>
          <div className="account">
            <span className="account-who" title={me.sub}>
              <span className="account-tenant">{me.tenant}</span> · {me.role}
            </span>
            <button type="button" className="button button-ghost" onClick={() => void onSignOut()}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" ref={mainRef} className="main" tabIndex={-1}>
        {page}
      </main>
      {me.expired && <SessionExpiredDialog onSignOut={() => void onSignOut()} />}
    </>
  );
}

function NotFound() {
  const { path } = useRouter();
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>.
      </p>
      <ul className="plain-links">
        <li>
          <Link to="/">Scan: launch a scan or ask for one</Link>
        </li>
        <li>
          <Link to="/scans">Scans</Link>
        </li>
        <li>
          <Link to="/issues">Issues</Link>
        </li>
        <li>
          <Link to="/settings/scheduled-scans">Scheduled Scans</Link>
        </li>
      </ul>
    </section>
  );
}
