import { inKeyOrderOf } from '@toolgate/core';
import { DiffView } from '../../../shared/editor/diff-view.tsx';
import { HashBadge } from '../../../shared/ui/badges.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useRevisionDiff } from '../api/diff-revisions.ts';
import { describeChanges } from '../draft/describe-changes.ts';
import { toYaml } from '../draft/policy-draft.ts';

/** Side-by-side diff of two generations' specs, with the list of changes the API computed. */
export function PolicyDiff(props: {
  name: string;
  current: number;
  from: number | undefined;
  to: number | undefined;
  onChange: (from: number, to: number) => void;
}) {
  const from = props.from ?? Math.max(1, props.current - 1);
  const to = props.to ?? props.current;
  const diff = useRevisionDiff(props.name, from, to);
  const generations = Array.from({ length: props.current }, (_, i) => i + 1);
  return (
    <>
      <div className="toolbar">
        <Field label="From generation">
          {(control) => (
            <select
              {...control}
              value={from}
              onChange={(e) => props.onChange(Number(e.target.value), to)}
            >
              {generations.map((g) => (
                <option key={g}>{g}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="To generation">
          {(control) => (
            <select
              {...control}
              value={to}
              onChange={(e) => props.onChange(from, Number(e.target.value))}
            >
              {generations.map((g) => (
                <option key={g}>{g}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <QueryView query={diff} loadingLabel="Computing diff…">
        {(result) => (
          <>
            <p>
              Generation {result.from.generation} <HashBadge hash={result.from.hash} label="spec" />{' '}
              → generation {result.to.generation} <HashBadge hash={result.to.hash} label="spec" />:{' '}
              {result.changes.length === 0 ? 'identical specs' : 'changes:'}
            </p>
            {result.changes.length > 0 ? (
              <ul className="change-list" aria-label="Spec changes">
                {describeChanges(result.from.spec, result.to.spec).map((change) => (
                  <li key={change}>{change}</li>
                ))}
              </ul>
            ) : (
              <Empty title="No differences" />
            )}
            <DiffView
              // The older side in the newer one's key order: a reordered key is no change.
              left={toYaml(inKeyOrderOf(result.from.spec, result.to.spec))}
              right={toYaml(result.to.spec)}
              leftLabel={`Generation ${result.from.generation}`}
              rightLabel={`Generation ${result.to.generation}`}
            />
          </>
        )}
      </QueryView>
    </>
  );
}
