import { Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { signInPath } from '../shared/auth/return-to.ts';
import { useSession, useWhoami } from '../shared/auth/session.tsx';
import { ErrorState, PageSkeleton } from '../shared/ui/states.tsx';
import { TopBar } from './top-bar.tsx';

/** The signed-in frame: navigation, who is signed in with which roles, and the page. */
export function Layout() {
  const { token, ended, signOut } = useSession();
  const who = useWhoami();
  const location = useLocation();
  if (!token) {
    // A 401 from any call (session.tsx) lands here as `expired`: sign-in comes back to this
    // very page, query string and fragment included. Signing out on purpose starts afresh.
    const here = `${location.pathname}${location.search}${location.hash}`;
    const to =
      ended === 'signedOut'
        ? signInPath(undefined)
        : signInPath(here, ended === 'expired' ? 'expired' : undefined);
    return <Navigate to={to} replace />;
  }
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar who={who.data} onSignOut={signOut} />
      <main id="main" className="content" tabIndex={-1}>
        {/* Pages render while whoami is in flight (their data loads in parallel); write
            controls appear only once the roles are known, so none flashes for an auditor. */}
        {who.error ? (
          <ErrorState error={who.error} retry={() => void who.refetch()} />
        ) : (
          <Suspense fallback={<PageSkeleton />}>
            <Outlet />
          </Suspense>
        )}
      </main>
    </div>
  );
}
