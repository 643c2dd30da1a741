import type { HostedTool } from '@toolgate/core';
import { Link, useParams } from 'react-router';
import { Labels } from '../../../shared/ui/badges.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { QueryView } from '../../../shared/ui/states.tsx';
import { useHostedTool } from '../api/get-hosted-tool.ts';

/** One hosted tool: the declaration the model sees, the endpoint the gateway calls, redaction. */
export function HostedToolPage() {
  const name = useParams().name ?? '';
  const tool = useHostedTool(name);
  return (
    <QueryView query={tool} loadingLabel="Loading the hosted tool…">
      {(data) => <HostedToolDetail tool={data} />}
    </QueryView>
  );
}

function kib(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

function HostedToolDetail({ tool }: { tool: HostedTool }) {
  const { spec } = tool;
  const { endpoint } = spec;
  const headers = endpoint.headers ?? [];
  const redact = spec.redact ?? [];
  return (
    <>
      <PageHeader
        title={`Hosted tool: ${tool.metadata.name}`}
        subtitle={
          <>
            <Link to="/hosted-tools">All hosted tools</Link> · the model calls it{' '}
            <code>{spec.tool.name}</code>
          </>
        }
      />
      <dl className="facts">
        {spec.description ? (
          <>
            <dt>Description</dt>
            <dd>{spec.description}</dd>
          </>
        ) : null}
        <dt>Labels</dt>
        <dd>
          <Labels labels={tool.metadata.labels} />
        </dd>
      </dl>
      <Section title="What the model sees">
        <dl className="facts">
          <dt>Name</dt>
          <dd>
            <code>{spec.tool.name}</code>
          </dd>
          <dt>Description</dt>
          <dd>{spec.tool.description}</dd>
        </dl>
        <h3>Arguments schema</h3>
        <pre className="json-block">{JSON.stringify(spec.tool.parameters, null, 2)}</pre>
      </Section>
      <Section title="Endpoint">
        <dl className="facts">
          <dt>URL</dt>
          <dd>
            <code className="hosted-tool-url">POST {endpoint.url}</code>
          </dd>
          <dt>Headers</dt>
          <dd>
            {headers.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              headers.map((header) => (
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
          <dt>Timeout</dt>
          <dd>{endpoint.timeout ?? '10s'} per attempt</dd>
          <dt>Retries</dt>
          <dd>
            {(endpoint.retries ?? 0) === 0
              ? 'none (calls may not be idempotent)'
              : `${endpoint.retries}, after a connection error or a 5xx`}
          </dd>
          <dt>Answer limit</dt>
          <dd>{kib(endpoint.maxResponseBytes ?? 256 * 1024)}</dd>
        </dl>
      </Section>
      <Section title={`Redacted paths (${redact.length})`}>
        {redact.length === 0 ? (
          <p className="muted">The endpoint's answer reaches the model as it is.</p>
        ) : (
          <ul>
            {redact.map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
