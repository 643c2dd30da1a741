import type { McpDrift, McpServer } from '@toolgate/core';
import { errorMessage } from '../../../shared/api/api-client.tsx';
import { useCan } from '../../../shared/auth/session.tsx';
import { DiffView } from '../../../shared/editor/diff-view.tsx';
import { prettyJson } from '../../../shared/lib/pretty-json.ts';
import { HashBadge, Time } from '../../../shared/ui/badges.tsx';
import { ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { useAcceptMcpTool } from '../api/accept-mcp-tool.ts';
import { useMcpDefinition } from '../api/get-mcp-definition.ts';

/**
 * One open drift: the pinned definition next to the new one (both fetched by hash), and, for
 * operators, Accept, which pins exactly the definition on screen (the API refuses it if the
 * tool changed again since).
 */
export function DriftDiff({ server, drift }: { server: McpServer; drift: McpDrift }) {
  const name = server.metadata.name;
  const before = useMcpDefinition(name, drift.from);
  const after = useMcpDefinition(name, drift.to);
  const canAccept = useCan('mcpServers.accept');
  const accept = useAcceptMcpTool(name);
  const title = `${drift.tool}`;
  return (
    <article className="schema-diff" aria-label={`Drift of ${drift.tool}`}>
      <h3>
        <code>{title}</code> <HashBadge hash={drift.from} label="pinned definition" /> →{' '}
        <HashBadge hash={drift.to} label="new definition" />{' '}
        <span className="muted">
          seen <Time value={drift.detectedAt} /> by {drift.detectedBy}
        </span>
      </h3>
      {before.isPending || after.isPending ? (
        <Loading label={`Loading the definitions of ${title}…`} />
      ) : before.error || after.error ? (
        <ErrorState title={`Definitions of ${title}`} error={before.error ?? after.error} />
      ) : (
        <DiffView
          left={prettyJson(before.data ?? null)}
          right={prettyJson(after.data ?? null)}
          leftLabel="Pinned definition"
          rightLabel="New definition"
        />
      )}
      {canAccept ? (
        <div className="filter-actions">
          <button
            type="button"
            className="button button-primary"
            disabled={accept.isPending}
            onClick={() => {
              if (
                window.confirm(
                  `Accept the new definition of ${drift.tool}? Agents will be offered it from now on.`,
                )
              ) {
                accept.mutate({ tool: drift.tool, hash: drift.to });
              }
            }}
          >
            Accept new definition
          </button>
          {accept.error ? (
            <span className="field-error" role="alert">
              {errorMessage(accept.error)}
            </span>
          ) : null}
        </div>
      ) : null}
    </article>
  );
}
