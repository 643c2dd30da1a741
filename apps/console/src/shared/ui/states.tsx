import type { ReactNode } from 'react';
import { errorMessage, httpStatusOf } from '../api/api-client.tsx';

export function Loading(props: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {props.label ?? 'Loading…'}
    </div>
  );
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

/** Renders loading / error / content for one query. */
export function QueryView<T>(props: {
  query: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  loadingLabel?: string;
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending)
    return <Loading {...(props.loadingLabel ? { label: props.loadingLabel } : {})} />;
  if (query.error || query.data === undefined)
    return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return <>{props.children(query.data)}</>;
}
