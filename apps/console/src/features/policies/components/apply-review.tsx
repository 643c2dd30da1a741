import { useEffect, useRef, useState } from 'react';
import { Field } from '../../../shared/ui/field.tsx';

const NOTE_MAX = 500;

/**
 * The step between "Apply" and the write: what changes, in words, and an optional note on why
 * (stored with the revision, shown in history). Nothing is sent until it is confirmed.
 */
export function ApplyReview(props: {
  /** The policy being changed; undefined for a new one. */
  name: string | undefined;
  nextGeneration: number;
  changes: ReadonlyArray<string>;
  pending: boolean;
  onConfirm: (changeNote: string | undefined) => void;
  onCancel: () => void;
}) {
  const [note, setNote] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const oneLine = note.replace(/\s+/g, ' ').trim();
  return (
    <section
      className="confirm-panel"
      role="dialog"
      aria-labelledby="review-title"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !props.pending) props.onCancel();
      }}
    >
      <h2 id="review-title" tabIndex={-1} ref={heading}>
        {props.name
          ? `Review: generation ${props.nextGeneration} of ${props.name}`
          : 'Review: new policy'}
      </h2>
      {props.changes.length > 0 ? (
        <ul className="change-list" aria-label="Changes to apply">
          {props.changes.map((change) => (
            <li key={change}>{change}</li>
          ))}
        </ul>
      ) : (
        <p>Only labels or annotations change; the spec stays as it is.</p>
      )}
      <Field
        label="Change note (optional)"
        hint={`Why: kept with the revision and shown in history. One line, at most ${NOTE_MAX} characters.`}
      >
        {(control) => (
          <input
            {...control}
            value={note}
            maxLength={NOTE_MAX}
            onChange={(e) => setNote(e.target.value)}
          />
        )}
      </Field>
      <div className="form-actions">
        <button
          type="button"
          className="button button-primary"
          disabled={props.pending}
          onClick={() => props.onConfirm(oneLine || undefined)}
        >
          {props.pending
            ? 'Applying…'
            : props.name
              ? `Apply generation ${props.nextGeneration}`
              : 'Create policy'}
        </button>
        <button
          type="button"
          className="button button-quiet"
          disabled={props.pending}
          onClick={props.onCancel}
        >
          Back to editing
        </button>
      </div>
    </section>
  );
}
