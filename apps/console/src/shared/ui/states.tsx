import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { errorMessage, httpStatusOf } from '../api/api-client.tsx';
import { PageHeader } from './page.tsx';

/** Widths of the placeholder lines: uneven, like real rows, so the page does not jump much. */
const SKELETON_WIDTHS = ['92%', '78%', '85%', '64%', '88%', '71%', '80%', '58%'];

/**
 * A skeleton of what is coming (a heading, then rows) instead of a "Loading…" line: the page
 * keeps its shape while the data arrives. Screen readers hear the label once (role=status);
 * the bars are decoration. The shimmer stops under prefers-reduced-motion (components.css).
 */
export function Loading(props: { label?: string; rows?: number; heading?: boolean }) {
  const rows = Math.max(1, Math.min(props.rows ?? 4, SKELETON_WIDTHS.length));
  return (
    <div className="skeleton" role="status" aria-live="polite" aria-busy="true">
      <span className="sr-only">{props.label ?? 'Loading…'}</span>
      {props.heading ? <span className="skeleton-bar skeleton-heading" aria-hidden="true" /> : null}
      {SKELETON_WIDTHS.slice(0, rows).map((width) => (
        <span key={width} className="skeleton-bar" style={{ width }} aria-hidden="true" />
      ))}
    </div>
  );
}

/** The skeleton of a whole page (heading and rows): what a page shows while its code loads. */
export function PageSkeleton(props: { label?: string }) {
  return <Loading label={props.label ?? 'Loading the page…'} heading rows={6} />;
}

export function ErrorState(props: { error: unknown; title?: string; retry?: () => void }) {
  const status = httpStatusOf(props.error);
  return (
    <div className="state state-error" role="alert">
      <strong>{props.title ?? 'Something went wrong'}</strong>
      <p>
        {status ? `HTTP ${status}: ` : ''}
        {errorMessage(props.error)}
      </p>
      {props.retry ? (
        <button type="button" className="button" onClick={props.retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty(props: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{props.title}</strong>
      {props.children ? <div>{props.children}</div> : null}
    </div>
  );
}

/**
 * Nothing at this address: an unknown route, or an object id the API does not know
 * (`/policies/does-not-exist`). Offers the way back: the list the address belongs to, and the
 * Overview.
 */
export function NotFound(props: { message?: string }) {
  const { pathname } = useLocation();
  const [first, ...rest] = pathname.split('/').filter(Boolean);
  // `/policies/x` → `/policies`; an unknown top-level address has no list of its own.
  const list = first && rest.length > 0 ? `/${first}` : undefined;
  return (
    <>
      <PageHeader title="Not found" />
      <div className="state state-empty not-found">
        <p>
          <strong>Nothing lives at this address.</strong>
        </p>
        <p>
          <code className="not-found-path">{pathname}</code>
        </p>
        {props.message ? <p>{props.message}</p> : null}
        <p className="not-found-links">
          {list ? (
            <Link className="button" to={list}>
              ← Back to {first?.replace(/-/g, ' ')}
            </Link>
          ) : null}
          <Link className="button" to="/">
            Go to the Overview
          </Link>
        </p>
      </div>
    </>
  );
}

/** Renders loading / not found / error / content for one query. */
export function QueryView<T>(props: {
  query: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  loadingLabel?: string;
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending)
    return <Loading {...(props.loadingLabel ? { label: props.loadingLabel } : {})} />;
  // A 404 is an answer (the object does not exist), not a glitch to retry.
  if (httpStatusOf(query.error) === 404) return <NotFound message={errorMessage(query.error)} />;
  if (query.error || query.data === undefined)
    return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return <>{props.children(query.data)}</>;
}
