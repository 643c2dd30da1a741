import type { McpServer } from '@toolgate/core';
import { Link } from 'react-router';
import { Pill, Time } from '../../../shared/ui/badges.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useMcpServers } from '../api/list-mcp-servers.ts';

export function openDriftCount(server: McpServer): number {
  // Read defensively: the console shows what the API sent, not what the schema defaults.
  return (server.status?.drifts ?? []).filter((drift) => drift.state === 'open').length;
}

/** Every MCP server behind the gateways: where it is, how drift is handled, what is open. */
export function McpServersPage() {
  const servers = useMcpServers();
  const now = Date.now();
  return (
    <>
      <PageHeader
        title="MCP servers"
        subtitle="Upstream MCP servers agents reach through the gateways, with their pinned tools"
      />
      <QueryView query={servers} loadingLabel="Loading MCP servers…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No MCP servers">
              Create one with <code>toolgate apply -f</code> (see{' '}
              <code>examples/mcp/github-mcp-server.yaml</code>).
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">MCP servers</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">URL</th>
                    <th scope="col">Drift mode</th>
                    <th scope="col">Tools</th>
                    <th scope="col">Open drifts</th>
                    <th scope="col">Last observed</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((server) => {
                    const open = openDriftCount(server);
                    return (
                      <tr key={server.metadata.name}>
                        <th scope="row">
                          <Link to={`/mcp-servers/${encodeURIComponent(server.metadata.name)}`}>
                            {server.metadata.name}
                          </Link>
                        </th>
                        <td>
                          <code>{server.spec.url}</code>
                        </td>
                        <td>
                          <Pill tone={server.spec.drift === 'block' ? 'info' : 'neutral'}>
                            {server.spec.drift}
                          </Pill>
                        </td>
                        <td>{(server.status?.tools ?? []).length}</td>
                        <td>{open > 0 ? <Pill tone="warn">{open} open</Pill> : <span>0</span>}</td>
                        <td>
                          <Time value={server.status?.observedAt} now={now} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </>
  );
}
