import { Suspense, useEffect } from 'react';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { PendingApprovalsBadge } from '../features/approvals/components/approval-state.tsx';
import { httpStatusOf } from '../shared/api/api-client.tsx';
import { useSession, useWhoami } from '../shared/auth/session.tsx';
import { ErrorState, Loading } from '../shared/ui/states.tsx';

const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/policies', label: 'Policies' },
  { to: '/receipts', label: 'Receipts' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/fidelity', label: 'Fidelity' },
  { to: '/gateways', label: 'Gateways' },
  { to: '/mcp-servers', label: 'MCP servers' },
  { to: '/identities', label: 'Identities' },
  { to: '/audit', label: 'Audit log' },
];

/** The signed-in frame: navigation, who is signed in with which roles, and the page. */
export function Layout() {
  const { token, signOut } = useSession();
  const who = useWhoami();
  const location = useLocation();
  const unauthorized = httpStatusOf(who.error) === 401;
  useEffect(() => {
    if (unauthorized) signOut();
  }, [unauthorized, signOut]);
  if (!token || unauthorized) {
    return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  }
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Toolgate</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={'end' in item}>
                  {item.label}
                  {item.to === '/approvals' ? <PendingApprovalsBadge /> : null}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          {who.data ? (
            <>
              <span>{who.data.identity}</span>{' '}
              {who.data.roles.map((role) => (
                <span
                  key={role}
                  className={`pill pill-${role === 'operator' ? 'info' : 'neutral'}`}
                >
                  {role}
                </span>
              ))}
            </>
          ) : null}
          <button type="button" className="button button-quiet" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="content" tabIndex={-1}>
        {/* Pages render while whoami is in flight (their data loads in parallel); write
            controls appear only once the roles are known, so none flashes for an auditor. */}
        {who.error ? (
          <ErrorState error={who.error} retry={() => void who.refetch()} />
        ) : (
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        )}
      </main>
    </div>
  );
}
