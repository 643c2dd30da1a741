import { approvalState, findCondition, type ToolCallApproval } from '@toolgate/core';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { errorMessage } from '../../../shared/api/api-client.tsx';
import { useCan } from '../../../shared/auth/session.tsx';
import { prettyJson } from '../../../shared/lib/pretty-json.ts';
import { Pill, Time } from '../../../shared/ui/badges.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { PageHeader, Section } from '../../../shared/ui/page.tsx';
import { QueryView } from '../../../shared/ui/states.tsx';
import { useDecideApproval } from '../api/decide-approval.ts';
import { useApproval } from '../api/get-approval.ts';
import { ApprovalStatePill, identityText } from './approval-state.tsx';

/** One withheld call: what the agent wanted to do, as whom, why it waits, and the decision. */
export function ApprovalPage() {
  const name = useParams().name ?? '';
  const approval = useApproval(name);
  return (
    <QueryView query={approval} loadingLabel="Loading the approval…">
      {(data) => <ApprovalDetail approval={data} />}
    </QueryView>
  );
}

function ApprovalDetail({ approval }: { approval: ToolCallApproval }) {
  const now = Date.now();
  const { spec, status } = approval;
  const decision =
    findCondition(status?.conditions, 'Approved') ?? findCondition(status?.conditions, 'Denied');
  const expired = findCondition(status?.conditions, 'Expired');
  return (
    <>
      <PageHeader
        title={`Approval: ${spec.tool}`}
        subtitle={
          <>
            <Link to="/approvals">All approvals</Link> · <code>{approval.metadata.name}</code>
          </>
        }
      />
      <dl className="facts">
        <dt>State</dt>
        <dd>
          <ApprovalStatePill approval={approval} now={now} />
          {decision?.status === 'True' ? <span className="muted"> {decision.message}</span> : null}
          {expired?.status === 'True' ? <span className="muted"> · {expired.message}</span> : null}
        </dd>
        <dt>Tool</dt>
        <dd>
          <code>{spec.tool}</code> <span className="muted">({spec.surface})</span>
        </dd>
        <dt>Identity</dt>
        <dd>
          {identityText(approval)} <Pill tone="neutral">{spec.identity.binding}</Pill>
        </dd>
        <dt>Gateway</dt>
        <dd>{spec.gateway}</dd>
        <dt>Receipt</dt>
        <dd>
          <Link to={`/receipts/${encodeURIComponent(spec.receiptId)}`}>{spec.receiptId}</Link>
        </dd>
        <dt>Rule</dt>
        <dd>
          <code>{spec.rule.id}</code> in policy{' '}
          <Link to={`/policies/${encodeURIComponent(spec.rule.policy)}`}>{spec.rule.policy}</Link>
        </dd>
        <dt>Requested</dt>
        <dd>
          <Time value={status?.requestedAt} now={now} />
          {(status?.requests ?? 1) > 1 ? (
            <span className="muted"> (opened {status?.requests} times)</span>
          ) : null}
        </dd>
        <dt>Decided</dt>
        <dd>
          {status?.decidedAt ? (
            <>
              <Time value={status.decidedAt} now={now} /> by {status.decidedBy}
            </>
          ) : (
            <span className="muted">not yet</span>
          )}
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time value={status?.expiresAt} now={now} />{' '}
          <span className="muted">(decisions stand for {spec.ttlSeconds} s)</span>
        </dd>
      </dl>
      <Section title="Arguments">
        <p className="muted">
          Redacted as the gateway recorded them
          {spec.argumentsTruncated ? ', and cut to size' : ''}. Hash{' '}
          <code>{spec.argumentsHash}</code>
        </p>
        <pre className="json-block">{prettyJson(spec.arguments)}</pre>
      </Section>
      {approvalState(approval, now) === 'pending' ? <DecisionForm approval={approval} /> : null}
    </>
  );
}

/** Approve or deny, with an optional reason; operators only (auditors read). */
function DecisionForm({ approval }: { approval: ToolCallApproval }) {
  const canDecide = useCan('toolCallApprovals.decide');
  const decide = useDecideApproval(approval.metadata.name);
  const [reason, setReason] = useState('');
  if (!canDecide) return null;
  const send = (decision: 'Approve' | 'Deny') =>
    decide.mutate({ decision, ...(reason.trim() ? { reason: reason.trim() } : {}) });
  return (
    <Section title="Decision">
      <Field
        label="Reason (optional)"
        hint="Shown to auditors, and to the agent for a denial."
        error={decide.error ? errorMessage(decide.error) : undefined}
      >
        {(control) => (
          <input
            {...control}
            maxLength={1024}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
        )}
      </Field>
      <div className="filter-actions">
        <button
          type="button"
          className="button button-primary"
          disabled={decide.isPending}
          onClick={() => send('Approve')}
        >
          Approve
        </button>
        <button
          type="button"
          className="button"
          disabled={decide.isPending}
          onClick={() => send('Deny')}
        >
          Deny
        </button>
      </div>
    </Section>
  );
}
