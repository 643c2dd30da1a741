import type { PolicyRevision } from '@toolgate/contract';
import { useState } from 'react';
import { errorMessage } from '../../../shared/api/api-client.tsx';
import { useCan } from '../../../shared/auth/session.tsx';
import { HashBadge, Pill, Time } from '../../../shared/ui/badges.tsx';
import { Empty, QueryView } from '../../../shared/ui/states.tsx';
import { useRevisions } from '../api/list-revisions.ts';
import { useRollbackPolicy } from '../api/rollback-policy.ts';
import { describeChanges } from '../draft/describe-changes.ts';

/**
 * Every generation, newest first, with what changed from the one before (in words), its change
 * note and whether a rollback made it; pick two to diff, roll back to any older one whose spec
 * differs from the current one.
 */
export function PolicyHistory(props: {
  name: string;
  current: number;
  onCompare: (from: number, to: number) => void;
}) {
  const revisions = useRevisions(props.name);
  const rollback = useRollbackPolicy(props.name);
  const canRollback = useCan('policies.rollback');
  const [selected, setSelected] = useState<number[]>([]);
  const toggle = (generation: number) =>
    setSelected((current) =>
      current.includes(generation)
        ? current.filter((g) => g !== generation)
        : [...current, generation].slice(-2),
    );
  const [a, b] = [...selected].sort((x, y) => x - y);

  return (
    <QueryView query={revisions} loadingLabel="Loading history…">
      {(items) => {
        const currentHash = items.find((r) => r.generation === props.current)?.hash;
        return items.length === 0 ? (
          <Empty title="No revisions" />
        ) : (
          <>
            <div className="toolbar">
              <button
                type="button"
                className="button"
                disabled={a === undefined || b === undefined}
                onClick={() => a !== undefined && b !== undefined && props.onCompare(a, b)}
              >
                Compare selected{a !== undefined && b !== undefined ? ` (${a} ↔ ${b})` : ''}
              </button>
              <span className="muted">Select two generations to diff them.</span>
            </div>
            {rollback.error ? (
              <p className="field-error" role="alert">
                Rollback failed: {errorMessage(rollback.error)}
              </p>
            ) : null}
            {rollback.isSuccess ? (
              <p role="status">
                Rolled back: generation {rollback.data.metadata.generation} now has the spec of
                generation {rollback.variables}.
              </p>
            ) : null}
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Generations of {props.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Compare</th>
                    <th scope="col">Generation</th>
                    <th scope="col">Spec hash</th>
                    <th scope="col">Author</th>
                    <th scope="col">Applied</th>
                    <th scope="col">Change</th>
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((revision, index) => (
                    <tr key={revision.generation}>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select generation ${revision.generation} for diff`}
                          checked={selected.includes(revision.generation)}
                          onChange={() => toggle(revision.generation)}
                        />
                      </td>
                      <th scope="row">
                        {revision.generation}{' '}
                        {revision.generation === props.current ? (
                          <Pill tone="good">current</Pill>
                        ) : null}
                      </th>
                      <td>
                        <HashBadge hash={revision.hash} label="spec" />
                      </td>
                      <td>{revision.author}</td>
                      <td>
                        <Time value={revision.createdAt} />
                      </td>
                      <td>
                        <RevisionChange revision={revision} previous={items[index + 1]} />
                      </td>
                      <td>
                        {canRollback &&
                        revision.generation !== props.current &&
                        revision.hash !== currentHash ? (
                          <button
                            type="button"
                            className="button button-quiet"
                            disabled={rollback.isPending}
                            onClick={() => {
                              if (
                                window.confirm(
                                  `Roll ${props.name} back to generation ${revision.generation}?`,
                                )
                              )
                                rollback.mutate(revision.generation);
                            }}
                          >
                            Roll back to {revision.generation}
                          </button>
                        ) : revision.generation !== props.current &&
                          revision.hash === currentHash ? (
                          <span className="muted">same spec as current</span>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        );
      }}
    </QueryView>
  );
}

const MAX_SHOWN_CHANGES = 5;

/** What a generation changed: rollback mark, the operator's note, the changes in words. */
function RevisionChange(props: { revision: PolicyRevision; previous: PolicyRevision | undefined }) {
  const { revision, previous } = props;
  const changes = previous ? describeChanges(previous.spec, revision.spec) : [];
  const shown = changes.slice(0, MAX_SHOWN_CHANGES);
  return (
    <div className="revision-change">
      {revision.rollbackOf !== undefined ? (
        <Pill tone="warn">rolled back to generation {revision.rollbackOf}</Pill>
      ) : null}
      {revision.changeNote ? <p className="change-note">“{revision.changeNote}”</p> : null}
      {previous === undefined ? (
        <span className="muted">created</span>
      ) : changes.length === 0 ? (
        <span className="muted">no spec change</span>
      ) : (
        <ul className="change-list" aria-label={`Changes in generation ${revision.generation}`}>
          {shown.map((change) => (
            <li key={change}>{change}</li>
          ))}
          {changes.length > shown.length ? (
            <li className="muted">and {changes.length - shown.length} more (see Diff)</li>
          ) : null}
        </ul>
      )}
    </div>
  );
}
