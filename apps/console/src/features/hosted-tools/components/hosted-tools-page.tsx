import { Link } from 'react-router';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useHostedTools } from '../api/list-hosted-tools.ts';
import { endpointHost } from './endpoint-host.ts';

/** Every tool the gateways run themselves: what the model calls it and where the call goes. */
export function HostedToolsPage() {
  const tools = useHostedTools();
  return (
    <>
      <PageHeader
        title="Hosted tools"
        subtitle="Tools the gateways execute for the model by calling an operator's endpoint"
      />
      <QueryView query={tools} loadingLabel="Loading hosted tools…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No hosted tools">
              Create one with <code>toolgate apply -f</code> (see{' '}
              <code>examples/hosted-tools/approved-web-search.yaml</code>); a policy rule{' '}
              <code>action: host</code> offers it to requests.
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Hosted tools</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Tool name</th>
                    <th scope="col">Endpoint host</th>
                    <th scope="col">Timeout</th>
                    <th scope="col">Retries</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((tool) => (
                    <tr key={tool.metadata.name}>
                      <th scope="row">
                        <Link to={`/hosted-tools/${encodeURIComponent(tool.metadata.name)}`}>
                          {tool.metadata.name}
                        </Link>
                      </th>
                      <td>
                        <code>{tool.spec.tool.name}</code>
                      </td>
                      <td>
                        <code>{endpointHost(tool.spec.endpoint.url)}</code>
                      </td>
                      {/* Read defensively: the console shows what the API sent. */}
                      <td>{tool.spec.endpoint.timeout ?? '10s'}</td>
                      <td>{tool.spec.endpoint.retries ?? 0}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </>
  );
}
