import type { ApprovalState } from '@toolgate/core';
import { approvalState } from '@toolgate/core';
import { Link } from 'react-router';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { Time } from '../../../shared/ui/badges.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { countIn, requestedAt, useApprovals } from '../api/list-approvals.ts';
import { APPROVAL_STATES, ApprovalStatePill, identityText } from './approval-state.tsx';

const KEYS = ['state'] as const;

/**
 * Tool calls a `require_approval` rule withheld, newest first, pending ones by default: an agent
 * is waiting on each. Refreshed every two seconds.
 */
export function ApprovalsPage() {
  const approvals = useApprovals();
  const [params, setParams] = useUrlState(KEYS);
  const filter = (APPROVAL_STATES as string[]).includes(params.state ?? '')
    ? (params.state as ApprovalState)
    : undefined;
  const now = Date.now();
  return (
    <>
      <PageHeader
        title="Approvals"
        subtitle="Tool calls withheld until a person approves them; the agent retries once approved"
      />
      <QueryView query={approvals} loadingLabel="Loading approvals…">
        {(items) => {
          const shown = items.filter((a) => !filter || approvalState(a, now) === filter);
          return (
            <>
              <div className="toolbar">
                <fieldset className="segmented">
                  <legend className="sr-only">State</legend>
                  {[undefined, ...APPROVAL_STATES].map((state) => (
                    <button
                      key={state ?? 'all'}
                      type="button"
                      aria-pressed={filter === state}
                      className={filter === state ? 'active' : ''}
                      onClick={() => setParams({ state })}
                    >
                      {state ?? 'all'}
                      {state ? ` (${countIn(items, state, now)})` : ` (${items.length})`}
                    </button>
                  ))}
                </fieldset>
              </div>
              {shown.length === 0 ? (
                <Empty title={filter ? `No ${filter} approvals` : 'No approvals yet'}>
                  A gateway asks for one when a require_approval rule withholds a tool call.
                </Empty>
              ) : (
                <div className="table-wrap">
                  <table className="table">
                    <caption className="sr-only">Approvals</caption>
                    <thead>
                      <tr>
                        <th scope="col">Tool</th>
                        <th scope="col">State</th>
                        <th scope="col">Identity</th>
                        <th scope="col">Gateway</th>
                        <th scope="col">Rule</th>
                        <th scope="col">Requested</th>
                        <th scope="col">Expires</th>
                      </tr>
                    </thead>
                    <tbody>
                      {shown.map((approval) => (
                        <tr key={approval.metadata.name}>
                          <th scope="row">
                            <Link to={`/approvals/${encodeURIComponent(approval.metadata.name)}`}>
                              <code>{approval.spec.tool}</code>
                            </Link>
                            <br />
                            <span className="muted">{approval.metadata.name}</span>
                          </th>
                          <td>
                            <ApprovalStatePill approval={approval} now={now} />
                          </td>
                          <td>{identityText(approval)}</td>
                          <td>{approval.spec.gateway}</td>
                          <td>
                            <code>{approval.spec.rule.id}</code>
                          </td>
                          <td>
                            <Time value={requestedAt(approval)} now={now} />
                          </td>
                          <td>
                            <Time value={approval.status?.expiresAt} now={now} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </>
          );
        }}
      </QueryView>
    </>
  );
}
