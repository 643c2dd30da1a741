import { useEffect, useRef, useState } from 'react';
import { NavLink, useLocation } from 'react-router';
import { PendingApprovalsBadge } from '../features/approvals/components/approval-state.tsx';
import type { Who } from '../shared/auth/session.tsx';
import { ThemeToggle } from '../shared/theme/theme-toggle.tsx';

export const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/policies', label: 'Policies' },
  { to: '/receipts', label: 'Receipts' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/fidelity', label: 'Fidelity' },
  { to: '/gateways', label: 'Gateways' },
  { to: '/mcp-servers', label: 'MCP servers' },
  { to: '/hosted-tools', label: 'Hosted tools' },
  { to: '/identities', label: 'Identities' },
  { to: '/audit', label: 'Audit log' },
];

const MENU_ID = 'topbar-menu';

/**
 * The top bar: the navigation, who is signed in, the theme and sign-out. On a narrow screen
 * (below 64rem, see layout.css) they fold behind a Menu button so the bar never widens the
 * page; the menu closes when a page is chosen and on Escape (focus back on the button).
 */
export function TopBar(props: { who: Who | undefined; onSignOut: () => void }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const { pathname } = useLocation();
  // Choosing a page (the path changes) closes the menu.
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (!open) return;
    const closeOnEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [open]);

  return (
    <header className="topbar">
      <span className="brand">Toolgate</span>
      <button
        ref={toggle}
        type="button"
        className="button menu-toggle"
        aria-expanded={open}
        aria-controls={MENU_ID}
        onClick={() => setOpen((was) => !was)}
      >
        <span className="menu-icon" aria-hidden="true" />
        Menu
      </button>
      <div id={MENU_ID} className="topbar-menu" data-open={open ? '' : undefined}>
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
          {props.who ? (
            <span className="who-identity">
              <span>{props.who.identity}</span>{' '}
              {props.who.roles.map((role) => (
                <span
                  key={role}
                  className={`pill pill-${role === 'operator' ? 'info' : 'neutral'}`}
                >
                  {role}
                </span>
              ))}
            </span>
          ) : null}
          <ThemeToggle />
          <button type="button" className="button button-quiet" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
