import type { Receipt } from '@toolgate/core';
import { Link } from 'react-router';
import { HashBadge, Pill } from '../../../shared/ui/badges.tsx';
import { Section } from '../../../shared/ui/page.tsx';

/**
 * The MCP side of a receipt (`surface: mcp`): which server and method, the agent's session, the
 * JSON-RPC error it was answered with, and the tools whose definition had drifted from the pin.
 */
export function McpEvidenceSection({ receipt }: { receipt: Receipt }) {
  const mcp = receipt.mcp;
  if (!mcp) return null;
  return (
    <Section title="MCP">
      <dl className="facts">
        <dt>Server</dt>
        <dd>
          <Link to={`/mcp-servers/${encodeURIComponent(mcp.server)}`}>{mcp.server}</Link>
        </dd>
        <dt>Method</dt>
        <dd>
          <code>{mcp.method}</code>
        </dd>
        <dt>Session</dt>
        <dd>{mcp.session ? <code>{mcp.session}</code> : <span className="muted">none</span>}</dd>
        {mcp.error ? (
          <>
            <dt>Error</dt>
            <dd>
              <Pill tone="bad">JSON-RPC {mcp.error.code}</Pill> {mcp.error.message}
            </dd>
          </>
        ) : null}
      </dl>
      {mcp.drifted && mcp.drifted.length > 0 ? (
        <div className="table-wrap">
          <table className="table">
            <caption>Drifted tools</caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Pinned</th>
                <th scope="col">Seen</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {mcp.drifted.map((drift) => (
                <tr key={drift.tool}>
                  <th scope="row">
                    <code>{drift.tool}</code>
                  </th>
                  <td>
                    <HashBadge hash={drift.pinned} label="pinned definition" />
                  </td>
                  <td>
                    <HashBadge hash={drift.seen} label="definition seen" />
                  </td>
                  <td>
                    <Pill tone={drift.action === 'blocked' ? 'bad' : 'warn'}>{drift.action}</Pill>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Section>
  );
}
