import type { Receipt, ToolDescriptor } from '@toolgate/core';
import { Link, useParams } from 'react-router';
import { HashBadge, Pill, Time } from '../../../shared/ui/badges.tsx';
import { CopyButton } from '../../../shared/ui/copy-button.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { Empty, Loading, QueryView } from '../../../shared/ui/states.tsx';
import { useReceipt } from '../api/get-receipt.ts';
import { useChainVerification } from '../api/verify-chain.ts';
import { CALL_TONE, CallDecisionCell } from './call-decision.tsx';
import { HostedRoundsSection } from './hosted-rounds.tsx';
import { IdentityBinding } from './identity-binding.tsx';
import { McpEvidenceSection } from './mcp-evidence.tsx';
import { receiptHeadline } from './outcome-headline.ts';
import { RawJsonSection } from './raw-json.tsx';
import { SchemaDiff } from './schema-diff.tsx';
import { toolChanges } from './tool-changes.ts';
import { CallResultLink, ToolResultsSection } from './tool-results.tsx';

/** One receipt in full: mediation, tools before/after with schema diffs, evidence, chain. */
export function ReceiptPage() {
  const { id = '' } = useParams();
  const receipt = useReceipt(id);
  return (
    <QueryView query={receipt} loadingLabel="Loading receipt…">
      {({ seq, receipt: r }) => (
        // On a phone the tables wrap to the width (styles.css): the page never scrolls sideways.
        <div className="receipt-detail">
          <PageHeader
            title={`Receipt ${r.id}`}
            subtitle={
              <>
                <Link to="/receipts">← All receipts</Link> · gateway{' '}
                <Link to={`/receipts?gateway=${encodeURIComponent(r.gateway)}`}>{r.gateway}</Link> ·
                seq {seq} · <Time value={r.timestamps.received_at} />
              </>
            }
            actions={<CopyButton text={r.id} label="Copy id" />}
          />
          <Headline receipt={r} />
          <Overview receipt={r} />
          <McpEvidenceSection receipt={r} />
          <MediationSection receipt={r} />
          <ToolsSection receipt={r} />
          <ResponseSection receipt={r} />
          <HostedRoundsSection receipt={r} />
          <ToolResultsSection receipt={r} />
          <ChainSection receipt={r} seq={seq} />
          <RawJsonSection value={r} name={`Receipt ${r.id}`} />
        </div>
      )}
    </QueryView>
  );
}

/** What happened, first: a blocked call reads "blocked", whatever the provider's status. */
function Headline({ receipt }: { receipt: Receipt }) {
  const headline = receiptHeadline(receipt);
  return (
    <p className={`outcome-headline outcome-${headline.tone}`} data-testid="outcome-headline">
      <span className="muted">Outcome </span>
      <Pill tone={headline.tone}>{headline.text}</Pill>
    </p>
  );
}

function Overview({ receipt: r }: { receipt: Receipt }) {
  const tone = r.outcome.status < 200 || r.outcome.status > 299 ? 'bad' : 'neutral';
  return (
    <Section title="Request">
      <dl className="facts">
        <dt>HTTP status</dt>
        <dd>
          <Pill tone={tone}>{r.outcome.status}</Pill> {r.outcome.error ?? ''}
        </dd>
        <dt>Provider</dt>
        <dd>
          <code>{r.surface}</code> · {r.model} {r.stream ? '· streamed' : ''}
        </dd>
        <dt>Identity</dt>
        <dd>
          <IdentityBinding identity={r.identity} />
        </dd>
        <dt>Latency</dt>
        <dd>
          {r.latency_ms.total} ms total · {r.latency_ms.mediation} ms mediation ·{' '}
          {r.latency_ms.upstream} ms upstream
        </dd>
        <dt>Bundle</dt>
        <dd>
          <HashBadge hash={r.bundle.etag} label="bundle" />
        </dd>
        <dt>Policies</dt>
        <dd>
          {r.bundle.policies.length === 0
            ? 'none'
            : r.bundle.policies.map((p) => (
                <span key={p.name} className="policy-ref">
                  <Link to={`/policies/${encodeURIComponent(p.name)}`}>{p.name}</Link> gen{' '}
                  {p.generation} <HashBadge hash={p.hash} label={`revision of ${p.name}`} />
                </span>
              ))}
        </dd>
        {r.redacted_paths.length > 0 ? (
          <>
            <dt>Redacted</dt>
            <dd>{r.redacted_paths.join(', ')}</dd>
          </>
        ) : null}
      </dl>
    </Section>
  );
}

function MediationSection({ receipt: r }: { receipt: Receipt }) {
  const block = r.wardwright_tool_mediation;
  return (
    <Section title="Applied rules">
      {!block ? (
        <Empty title="No mediation">No rule changed this request.</Empty>
      ) : (
        <>
          <p>
            Mode <Pill tone="info">{block.mode}</Pill>
          </p>
          <table className="table">
            <caption className="sr-only">Applied rules</caption>
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Policy</th>
                <th scope="col">Action</th>
                <th scope="col">Matched tools</th>
              </tr>
            </thead>
            <tbody>
              {[
                ...block.applied_rules.map((rule) => ({ rule, observed: false })),
                ...(block.observed_rules ?? []).map((rule) => ({ rule, observed: true })),
              ].map(({ rule, observed }) => (
                <tr key={`${observed}:${rule.policy}/${rule.id}`}>
                  <th scope="row">
                    <code>{rule.id}</code>
                  </th>
                  <td>{rule.policy ?? '—'}</td>
                  <td>
                    <Pill tone={observed ? 'neutral' : 'info'}>
                      {observed ? `would ${rule.action}` : rule.action}
                    </Pill>
                  </td>
                  <td>{rule.matched_tools.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}

function ToolList(props: {
  title: string;
  tools: ReadonlyArray<ToolDescriptor>;
  other: ReadonlyArray<ToolDescriptor>;
}) {
  const other = new Set(props.other.map((t) => t.schema_hash));
  return (
    <div>
      <h3>
        {props.title} ({props.tools.length})
      </h3>
      <ul className="tool-list" aria-label={props.title}>
        {props.tools.length === 0 ? <li className="muted">no tools</li> : null}
        {props.tools.map((tool) => (
          <li
            key={`${tool.name}:${tool.schema_hash}`}
            className={other.has(tool.schema_hash) ? '' : 'changed'}
          >
            <code>{tool.name}</code> <span className="muted">{tool.declared_by}</span>{' '}
            <HashBadge hash={tool.schema_hash} label={`schema of ${tool.name}`} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function ToolsSection({ receipt: r }: { receipt: Receipt }) {
  const block = r.wardwright_tool_mediation;
  const changes = toolChanges(r);
  const original =
    block?.original_tools ??
    r.tools.map((t) => ({
      declared_by: t.declared_by,
      name: t.name,
      type: t.type,
      schema_hash: t.schema_hash,
    }));
  const visible = block?.provider_visible_tools ?? original;
  return (
    <>
      <Section title="Tools">
        <div className="two-columns">
          <ToolList title="Original tools" tools={original} other={visible} />
          <ToolList title="Provider-visible tools" tools={visible} other={original} />
        </div>
        {r.tools.length > 0 ? (
          <table className="table">
            <caption className="sr-only">Per-tool state</caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Policy state</th>
                <th scope="col">Declared by</th>
                <th scope="col">Executed by</th>
                <th scope="col">Fidelity</th>
                <th scope="col">Capability</th>
              </tr>
            </thead>
            <tbody>
              {r.tools.map((t) => (
                <tr key={`${t.name}:${t.schema_hash}`}>
                  <th scope="row">
                    <code>{t.name}</code>
                    {t.provider_name ? <span className="muted"> → {t.provider_name}</span> : null}
                  </th>
                  <td>
                    <Pill
                      tone={
                        t.policy_state === 'allowed'
                          ? 'good'
                          : t.policy_state === 'hidden' || t.policy_state === 'blocked'
                            ? 'bad'
                            : 'warn'
                      }
                    >
                      {t.policy_state}
                    </Pill>
                  </td>
                  <td>{t.declared_by}</td>
                  <td>{t.executed_by}</td>
                  <td>{t.fidelity}</td>
                  <td>{t.capability ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      <Section title="Schema diff">
        {changes.length === 0 ? (
          <Empty title="No tool changed">
            Every tool reached the provider exactly as the agent declared it.
          </Empty>
        ) : (
          changes.map((change) => (
            <SchemaDiff key={`${change.kind}:${change.name}`} change={change} />
          ))
        )}
      </Section>
    </>
  );
}

function ResponseSection({ receipt: r }: { receipt: Receipt }) {
  const response = r.response;
  return (
    <Section title="Response evidence">
      {!response ? (
        <Empty title="No response evidence">The provider returned no response body to judge.</Empty>
      ) : (
        <>
          {response.finish_reason ? (
            <p>
              Finish reason <code>{response.finish_reason}</code>
            </p>
          ) : null}
          <h3>Tool calls ({response.tool_calls.length})</h3>
          {response.tool_calls.length === 0 ? (
            <p className="muted">The model called no tool.</p>
          ) : (
            <table className="table">
              <caption className="sr-only">Tool calls</caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">State</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Arguments hash</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {response.tool_calls.map((call) => (
                  <tr key={call.id}>
                    <th scope="row">
                      <code>{call.name}</code>
                      {call.resolved_tool ? (
                        <span className="muted"> ({call.resolved_tool})</span>
                      ) : null}
                      {call.capability ? (
                        <span className="muted">
                          {' '}
                          · <code>{call.capability}</code>
                        </span>
                      ) : null}
                    </th>
                    <td>
                      <Pill tone={CALL_TONE[call.policy_state]}>{call.policy_state}</Pill>
                    </td>
                    <td>{call.reason ?? '—'}</td>
                    <td>
                      <CallDecisionCell decision={call.decision} />
                    </td>
                    <td>
                      <HashBadge hash={call.arguments_hash} label="arguments" />
                    </td>
                    <td>
                      {call.policy_state === 'allowed' ? (
                        <CallResultLink receipt={r} callId={call.id} />
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>Provider-hosted tool events ({response.hosted_tool_events.length})</h3>
          {response.hosted_tool_events.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul>
              {response.hosted_tool_events.map((event, index) => (
                <li key={index}>
                  <code>{event.capability}</code> via <code>{event.provider_type}</code> ·{' '}
                  <Pill tone="neutral">{event.fidelity}</Pill> · {event.policy_state}
                  {event.server ? (
                    <>
                      {' '}
                      · server <code>{event.server}</code>
                    </>
                  ) : null}
                  {event.container ? (
                    <>
                      {' '}
                      · container <code>{event.container}</code>
                    </>
                  ) : null}
                  {event.sources?.length ? ` · sources: ${event.sources.join(', ')}` : ''}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Section>
  );
}

function ChainSection({ receipt: r, seq }: { receipt: Receipt; seq: string }) {
  const chain = useChainVerification(r.gateway);
  const broken = chain.data?.firstBreak;
  return (
    <Section title="Chain">
      <dl className="facts">
        <dt>Position</dt>
        <dd>seq {seq}</dd>
        <dt>Previous hash</dt>
        <dd>
          <HashBadge hash={r.prev_hash} label="previous receipt" />{' '}
          {r.prev_hash === null ? '(first receipt)' : ''}
        </dd>
        <dt>Hash</dt>
        <dd>
          <HashBadge hash={r.hash} label="receipt" />
        </dd>
        <dt>Chain of {r.gateway}</dt>
        <dd>
          {chain.isPending ? (
            <Loading label="Verifying chain…" />
          ) : chain.error ? (
            <Pill tone="warn">could not verify</Pill>
          ) : chain.data?.valid ? (
            <Pill tone="good">intact · {chain.data.checked} receipts checked</Pill>
          ) : (
            <span role="alert">
              <Pill tone="bad">altered</Pill> first at seq {broken?.seq}
              {broken?.id ? (
                <>
                  {' '}
                  (<Link to={`/receipts/${encodeURIComponent(broken.id)}`}>{broken.id}</Link>)
                </>
              ) : (
                ' (no receipt stored there)'
              )}
              : <code>{broken?.reason}</code>
              {broken?.field ? (
                <>
                  {' '}
                  of <code>{broken.field}</code>
                </>
              ) : null}{' '}
              — {broken?.message}
              {broken?.seq === seq
                ? ' This is that receipt: what it shows is not what was chained.'
                : ''}
            </span>
          )}
        </dd>
      </dl>
    </Section>
  );
}
