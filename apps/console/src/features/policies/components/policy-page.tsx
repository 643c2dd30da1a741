import type { MediationPolicy } from '@toolgate/core';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { useCan } from '../../../shared/auth/session.tsx';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { HashBadge, Labels, Pill } from '../../../shared/ui/badges.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { QueryView } from '../../../shared/ui/states.tsx';
import { TabPanel, Tabs } from '../../../shared/ui/tabs.tsx';
import { usePolicy } from '../api/get-policy.ts';
import { PolicyDiff } from './policy-diff.tsx';
import { PolicyEditor } from './policy-editor.tsx';
import { PolicyHistory } from './policy-history.tsx';
import { RuleActionSummary } from './rule-action-summary.tsx';
import { UnsavedChangesGuard } from './unsaved-changes-guard.tsx';

const TABS = [
  { id: 'edit', label: 'Editor' },
  { id: 'history', label: 'History' },
  { id: 'diff', label: 'Diff' },
] as const;
const KEYS = ['tab', 'from', 'to'] as const;

/** One policy: editor, history of generations with rollback, diff of any two generations. */
export function PolicyPage() {
  const { name = '' } = useParams();
  const policy = usePolicy(name);
  const canWrite = useCan('mediationPolicies.replace');
  const [state, setState] = useUrlState(KEYS);
  const tab = TABS.some((t) => t.id === state.tab)
    ? (state.tab as (typeof TABS)[number]['id'])
    : 'edit';
  // A create lands here with its generation; a replace reports through onApplied.
  const created = useLocation().state as { applied?: number; changeNote?: string } | null;
  const [applied, setApplied] = useState<{ generation: number; changeNote?: string } | undefined>(
    created?.applied !== undefined
      ? {
          generation: created.applied,
          ...(created.changeNote ? { changeNote: created.changeNote } : {}),
        }
      : undefined,
  );

  return (
    <QueryView query={policy} loadingLabel="Loading policy…">
      {(p) => (
        <>
          <PageHeader
            title={p.metadata.name}
            subtitle={
              <>
                <Link to="/policies">← All policies</Link> · generation {p.metadata.generation} ·{' '}
                <Pill tone="info">{p.spec.mode}</Pill> · <Labels labels={p.metadata.labels} /> ·{' '}
                <RuleActionSummary rules={p.spec.rules} /> ·{' '}
                <HashBadge hash={p.status?.revisionHash} label="revision" />
              </>
            }
          />
          <UnsavedChangesGuard name={name} enabled={canWrite} />
          {applied !== undefined ? (
            <p className="info-notice" role="status">
              Applied: generation {applied.generation} of {p.metadata.name} is stored and in effect;
              gateways pick it up on their next sync.
              {applied.changeNote ? ` Note: “${applied.changeNote}”.` : ''}
            </p>
          ) : null}
          <Tabs
            label="Policy views"
            idBase="policy"
            tabs={TABS}
            selected={tab}
            onSelect={(id) => setState({ tab: id === 'edit' ? undefined : id })}
          />
          <TabPanel idBase="policy" id={tab} className="tab-panel">
            {tab === 'edit' ? (
              // A new generation resets the editor to it.
              <PolicyEditor
                key={p.metadata.resourceVersion}
                existing={p}
                canWrite={canWrite}
                onApplied={(stored: MediationPolicy, changeNote) =>
                  setApplied({
                    generation: stored.metadata.generation,
                    ...(changeNote ? { changeNote } : {}),
                  })
                }
              />
            ) : null}
            {tab === 'history' ? (
              <PolicyHistory
                name={p.metadata.name}
                current={p.metadata.generation}
                onCompare={(from, to) =>
                  setState({ tab: 'diff', from: String(from), to: String(to) })
                }
              />
            ) : null}
            {tab === 'diff' ? (
              <PolicyDiff
                name={p.metadata.name}
                current={p.metadata.generation}
                from={state.from ? Number(state.from) : undefined}
                to={state.to ? Number(state.to) : undefined}
                onChange={(from, to) => setState({ from: String(from), to: String(to) })}
              />
            ) : null}
          </TabPanel>
        </>
      )}
    </QueryView>
  );
}
