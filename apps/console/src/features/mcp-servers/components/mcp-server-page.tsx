import type { McpDrift, McpServer } from '@toolgate/core';
import { Link, useParams } from 'react-router';
import { HashBadge, Pill, Time } from '../../../shared/ui/badges.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useMcpServer } from '../api/get-mcp-server.ts';
import { DriftDiff } from './drift-diff.tsx';

const DRIFT_TONE = {
  open: 'warn',
  accepted: 'good',
  reverted: 'neutral',
  superseded: 'neutral',
} as const;

/** One MCP server: its tools (pinned and latest definition) and the drift events, with diffs. */
export function McpServerPage() {
  const name = useParams().name ?? '';
  const server = useMcpServer(name);
  return (
    <QueryView query={server} loadingLabel="Loading the MCP server…">
      {(data) => <McpServerDetail server={data} />}
    </QueryView>
  );
}

function McpServerDetail({ server }: { server: McpServer }) {
  const now = Date.now();
  const { spec, status } = server;
  const tools = status?.tools ?? [];
  const drifts = [...(status?.drifts ?? [])].reverse();
  const open = drifts.filter((drift) => drift.state === 'open');
  return (
    <>
      <PageHeader
        title={`MCP server: ${server.metadata.name}`}
        subtitle={
          <>
            <Link to="/mcp-servers">All MCP servers</Link> · <code>{spec.url}</code>
          </>
        }
      />
      <dl className="facts">
        <dt>Drift mode</dt>
        <dd>
          <Pill tone={spec.drift === 'block' ? 'info' : 'neutral'}>{spec.drift}</Pill>{' '}
          <span className="muted">
            {spec.drift === 'block'
              ? 'a changed tool is hidden from agents until accepted'
              : 'a changed tool is recorded and still offered'}
          </span>
        </dd>
        <dt>Headers</dt>
        <dd>
          {(spec.headers ?? []).length === 0 ? (
            <span className="muted">none</span>
          ) : (
            (spec.headers ?? []).map((header) => (
              <div key={header.name}>
                <code>{header.name}</code>:{' '}
                {header.secretRef ? (
                  <span className="muted">from the gateway's ${header.secretRef.env}</span>
                ) : (
                  <code>{header.value}</code>
                )}
              </div>
            ))
          )}
        </dd>
        <dt>Last observed</dt>
        <dd>
          <Time value={status?.observedAt} now={now} />
        </dd>
        {spec.description ? (
          <>
            <dt>Description</dt>
            <dd>{spec.description}</dd>
          </>
        ) : null}
      </dl>
      <Section title={`Tools (${tools.length})`}>
        {tools.length === 0 ? (
          <Empty title="No tools observed yet">
            A gateway reports the server's tools the first time an agent lists them.
          </Empty>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Tools of {server.metadata.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Pinned</th>
                  <th scope="col">Latest</th>
                  <th scope="col">State</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {tools.map((tool) => {
                  const drifted = tool.pinned !== tool.latest;
                  return (
                    <tr key={tool.name} className={drifted ? 'row-drifted' : ''}>
                      <th scope="row">
                        <code>{tool.name}</code>
                      </th>
                      <td>
                        <HashBadge hash={tool.pinned} label="pinned definition" />
                      </td>
                      <td>
                        <HashBadge hash={tool.latest} label="latest definition" />
                      </td>
                      <td>
                        {drifted ? (
                          <Pill tone="warn">
                            drifted{spec.drift === 'block' ? ' · hidden' : ''}
                          </Pill>
                        ) : (
                          <Pill tone="good">pinned</Pill>
                        )}
                      </td>
                      <td>
                        <Time value={tool.firstSeenAt} now={now} />{' '}
                        <span className="muted">by {tool.firstSeenBy}</span>
                      </td>
                      <td>
                        <Time value={tool.lastSeenAt} now={now} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title={`Open drifts (${open.length})`}>
        {open.length === 0 ? (
          <p className="muted">Every tool offers its pinned definition.</p>
        ) : (
          open.map((drift) => <DriftDiff key={drift.id} server={server} drift={drift} />)
        )}
      </Section>
      <Section title="Drift history">
        {drifts.length === 0 ? (
          <p className="muted">No tool of this server has changed its definition.</p>
        ) : (
          <DriftHistory drifts={drifts} now={now} />
        )}
      </Section>
    </>
  );
}

function DriftHistory({ drifts, now }: { drifts: ReadonlyArray<McpDrift>; now: number }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="sr-only">Drift events, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">State</th>
            <th scope="col">Detected</th>
            <th scope="col">Resolved</th>
          </tr>
        </thead>
        <tbody>
          {drifts.map((drift) => (
            <tr key={drift.id}>
              <th scope="row">
                <code>{drift.tool}</code>
              </th>
              <td>
                <HashBadge hash={drift.from} label="pinned definition" />
              </td>
              <td>
                <HashBadge hash={drift.to} label="new definition" />
              </td>
              <td>
                <Pill tone={DRIFT_TONE[drift.state]}>{drift.state}</Pill>
              </td>
              <td>
                <Time value={drift.detectedAt} now={now} />{' '}
                <span className="muted">by {drift.detectedBy}</span>
              </td>
              <td>
                {drift.resolvedAt ? (
                  <>
                    <Time value={drift.resolvedAt} now={now} />{' '}
                    <span className="muted">by {drift.resolvedBy}</span>
                  </>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
