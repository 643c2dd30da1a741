import type { MediationPolicy } from '@toolgate/core';
import { Link } from 'react-router';
import { useCan } from '../../../shared/auth/session.tsx';
import { HashBadge, Labels, Pill, Time } from '../../../shared/ui/badges.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { usePolicies } from '../api/list-policies.ts';
import { RuleActionSummary } from './rule-action-summary.tsx';

/** When the current generation was accepted: the last spec change. */
function lastChange(policy: MediationPolicy): string | undefined {
  return policy.status?.conditions?.find((c) => c.type === 'Accepted')?.lastTransitionTime;
}

export function PoliciesPage() {
  const policies = usePolicies();
  const canCreate = useCan('mediationPolicies.create');
  return (
    <>
      <PageHeader
        title="Policies"
        subtitle="Mediation policies: which tools each gateway's providers see"
        actions={
          canCreate ? (
            <Link className="button button-primary" to="/policies/new">
              New policy
            </Link>
          ) : null
        }
      />
      <QueryView query={policies} loadingLabel="Loading policies…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No policies yet">
              {canCreate ? (
                <Link to="/policies/new">Create the first policy</Link>
              ) : (
                'An operator can create one.'
              )}
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Mediation policies</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Labels</th>
                    <th scope="col">Mode</th>
                    <th scope="col">Priority</th>
                    <th scope="col">Rules</th>
                    <th scope="col">Generation</th>
                    <th scope="col">Revision</th>
                    <th scope="col">Last change</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((policy) => (
                    <tr key={policy.metadata.name}>
                      <th scope="row">
                        <Link to={`/policies/${encodeURIComponent(policy.metadata.name)}`}>
                          {policy.metadata.name}
                        </Link>
                      </th>
                      <td>
                        <Labels labels={policy.metadata.labels} />
                      </td>
                      <td>
                        <Pill tone={policy.spec.mode === 'observe' ? 'neutral' : 'info'}>
                          {policy.spec.mode}
                        </Pill>
                      </td>
                      <td>{policy.spec.priority}</td>
                      <td>
                        {policy.spec.rules.length} <RuleActionSummary rules={policy.spec.rules} />
                      </td>
                      <td>{policy.metadata.generation}</td>
                      <td>
                        <HashBadge hash={policy.status?.revisionHash} label="revision" />
                      </td>
                      <td>
                        <Time value={lastChange(policy) ?? policy.metadata.creationTimestamp} />
                      </td>
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
