import { DiffView } from '../../../shared/editor/diff-view.tsx';
import { prettyJson } from '../../../shared/lib/pretty-json.ts';
import { HashBadge } from '../../../shared/ui/badges.tsx';
import { ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { useSchemas } from '../api/get-schema.ts';
import type { ToolChange } from './tool-changes.ts';

/** Both declarations of a changed tool, fetched by hash from the schema store, side by side. */
export function SchemaDiff(props: { change: ToolChange }) {
  const { change } = props;
  const hashes = [change.before?.schema_hash, change.after?.schema_hash].filter(
    (h): h is string => h !== undefined,
  );
  const results = useSchemas(hashes);
  const title = `${change.name}${change.providerName ? ` → ${change.providerName}` : ''}`;
  if (results.some((r) => r.isPending)) return <Loading label={`Loading schemas of ${title}…`} />;
  const failed = results.find((r) => r.error);
  if (failed) return <ErrorState title={`Schemas of ${title}`} error={failed.error} />;
  const text = (hash: string | undefined) => {
    if (!hash) return '';
    return prettyJson(results[hashes.indexOf(hash)]?.data ?? null);
  };
  return (
    <article className="schema-diff" aria-label={`Schema diff of ${change.name}`}>
      <h3>
        <code>{title}</code> <span className="muted">({change.kind})</span>{' '}
        <HashBadge hash={change.before?.schema_hash} label="original schema" /> →{' '}
        <HashBadge hash={change.after?.schema_hash} label="provider-visible schema" />
      </h3>
      <DiffView
        left={text(change.before?.schema_hash)}
        right={
          change.kind === 'hidden' ? '# hidden from the provider' : text(change.after?.schema_hash)
        }
        leftLabel="Original (agent)"
        rightLabel="Provider-visible"
      />
    </article>
  );
}
