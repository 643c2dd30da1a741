import { type MediationPolicy, ResourceName } from '@toolgate/core';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage, fieldErrors } from '../../../shared/api/api-client.tsx';
import { humanCause } from '../../../shared/editor/human-errors.ts';
import { YamlEditor } from '../../../shared/editor/yaml-editor.tsx';
import { rangeOfCause } from '../../../shared/editor/yaml-positions.ts';
import { useDebounced } from '../../../shared/lib/use-debounced.ts';
import { Pill } from '../../../shared/ui/badges.tsx';
import { CodeSpans } from '../../../shared/ui/code-spans.tsx';
import { TabPanel, Tabs } from '../../../shared/ui/tabs.tsx';
import { useApplyPolicy } from '../api/apply-policy.ts';
import { useValidatePolicy } from '../api/validate-policy.ts';
import { describeChanges } from '../draft/describe-changes.ts';
import { clearDraft, readDraft, writeDraft } from '../draft/draft-store.ts';
import { editableObject, NEW_POLICY_TEMPLATE, parseDraft, toYaml } from '../draft/policy-draft.ts';
import { patchYaml } from '../draft/yaml-patch.ts';
import { ApplyReview } from './apply-review.tsx';
import { PolicyForm } from './policy-form.tsx';
import { PreviewPanel } from './preview-panel.tsx';

type View = 'yaml' | 'form';
const EDITOR_VIEWS = [
  { id: 'yaml', label: 'YAML' },
  { id: 'form', label: 'Form' },
] as const;

/**
 * Edits a policy as YAML or as a form (one draft, two views), validates it live on the server
 * (dry run) with each error at its field, previews it, and applies it as a new generation.
 */
export function PolicyEditor(props: {
  existing?: MediationPolicy;
  canWrite: boolean;
  /** Called once a write is stored, with the stored policy. */
  onApplied?: (policy: MediationPolicy, changeNote: string | undefined) => void;
}) {
  const { existing, canWrite } = props;
  const initial = useMemo(
    () => (existing ? toYaml(editableObject(existing)) : NEW_POLICY_TEMPLATE),
    [existing],
  );
  const base = existing?.metadata.resourceVersion ?? '';
  // An unsaved draft of this policy (from before a tab switch or a reload) wins over the stored one.
  const [restored, setRestored] = useState(() =>
    canWrite ? readDraft(existing?.metadata.name) : undefined,
  );
  const [text, setText] = useState(restored?.text ?? initial);
  const [view, setView] = useState<View>('yaml');
  const debounced = useDebounced(text, 350);
  const draft = useMemo(() => parseDraft(debounced), [debounced]);
  const liveDraft = useMemo(() => parseDraft(text), [text]);
  const name = existing?.metadata.name;
  const validation = useValidatePolicy(name, draft, canWrite);
  const navigate = useNavigate();
  const apply = useApplyPolicy(name, (policy, changeNote) => {
    clearDraft(name);
    props.onApplied?.(policy, changeNote);
    if (!existing)
      void navigate(`/policies/${encodeURIComponent(policy.metadata.name)}`, {
        state: { applied: policy.metadata.generation, changeNote },
      });
  });

  const dirty = text !== initial;
  // The version the draft was started from: a draft of an older one must not silently
  // overwrite what was applied since, so Apply sends it and a newer policy answers 409.
  const draftBase = restored?.base ?? base;
  useEffect(() => {
    if (!canWrite) return;
    if (dirty) writeDraft(name, { base: draftBase, text });
    else clearDraft(name);
  }, [canWrite, dirty, name, text, draftBase]);
  const staleDraft = dirty && draftBase !== base;
  const checking = canWrite && (debounced !== text || validation.isFetching);
  const result = validation.data;
  const causes = result && !result.valid ? result.causes : [];
  // A refused save's errors belong to the text that was saved: once edited, the dry run speaks.
  const [savedText, setSavedText] = useState<string>();
  const applyError = savedText === text ? apply.error : null;
  const applyCauses = fieldErrors(applyError);
  const errors = applyError && applyCauses.length > 0 ? applyCauses : causes;
  const diagnostics = useMemo(
    () =>
      debounced === text
        ? errors.map((e) => ({
            ...rangeOfCause(text, e),
            message: humanCause(e).replaceAll('`', ''),
          }))
        : [],
    [errors, text, debounced],
  );

  const [reviewing, setReviewing] = useState(false);
  const invalid = !liveDraft.ok || (canWrite && debounced === text && result?.valid === false);
  const canApply = !invalid && !checking && !apply.isPending && (existing === undefined || dirty);
  const changes = useMemo(
    () =>
      reviewing && liveDraft.ok ? describeChanges(existing?.spec ?? {}, liveDraft.object.spec) : [],
    [reviewing, liveDraft, existing],
  );

  const onConfirm = (changeNote: string | undefined) => {
    if (!liveDraft.ok) return;
    setSavedText(text);
    const object = liveDraft.object;
    const metadata = {
      ...(object.metadata as Record<string, unknown>),
      ...(existing ? { resourceVersion: draftBase } : {}),
    };
    apply.mutate(
      { object: { ...object, metadata }, ...(changeNote ? { changeNote } : {}) },
      { onSettled: () => setReviewing(false) },
    );
  };

  return (
    <div className="editor-layout">
      <div className="editor-main">
        <div className="toolbar">
          <Tabs
            label="Editor view"
            idBase="editor-view"
            variant="segmented"
            tabs={EDITOR_VIEWS}
            selected={view}
            onSelect={setView}
          />
          <ValidationBadge
            canWrite={canWrite}
            checking={checking}
            syntaxError={liveDraft.ok ? undefined : liveDraft.error}
            result={result}
            error={validation.error}
          />
        </div>

        {restored && dirty ? (
          <p className="info-notice" role="status">
            {staleDraft
              ? 'Unsaved draft restored. The policy has changed since this draft was started, so applying it is refused as a conflict: check History, then discard the draft and redo the change on the current generation.'
              : 'Unsaved draft restored.'}
          </p>
        ) : null}

        <TabPanel idBase="editor-view" id={view} focusable={false}>
          {view === 'yaml' ? (
            <YamlEditor
              value={text}
              onChange={setText}
              readOnly={!canWrite}
              diagnostics={diagnostics}
              label={`Policy YAML${name ? ` for ${name}` : ''}`}
            />
          ) : liveDraft.ok ? (
            <PolicyForm
              object={liveDraft.object}
              onChange={(object) => setText((current) => patchYaml(current, object))}
              errors={errors}
              nameLocked={existing !== undefined}
              readOnly={!canWrite}
            />
          ) : (
            <p className="field-error" role="alert">
              Fix the YAML first: {liveDraft.error}
            </p>
          )}
        </TabPanel>

        {errors.length > 0 ? (
          <div className="error-list" role="alert" aria-label="Validation errors">
            <strong>{errors.length === 1 ? '1 error' : `${errors.length} errors`}</strong>
            <ul className="error-items">
              {errors.map((e) => (
                <li key={`${e.field}:${e.message}`}>
                  <CodeSpans text={humanCause(e)} />
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        {reviewing && liveDraft.ok ? (
          <ApplyReview
            name={name}
            nextGeneration={(existing?.metadata.generation ?? 0) + 1}
            changes={changes}
            pending={apply.isPending}
            onConfirm={onConfirm}
            onCancel={() => setReviewing(false)}
          />
        ) : null}
        {canWrite ? (
          <div className="form-actions">
            <button
              type="button"
              className="button button-primary"
              disabled={!canApply || reviewing}
              aria-describedby={invalid ? 'apply-blocked' : undefined}
              onClick={() => setReviewing(true)}
            >
              {existing ? 'Review and apply…' : 'Review and create…'}
            </button>
            {invalid ? (
              <span id="apply-blocked" className="muted">
                Fix the errors to apply.
              </span>
            ) : null}
            {dirty ? (
              <button
                type="button"
                className="button button-quiet"
                onClick={() => {
                  clearDraft(name);
                  setRestored(undefined);
                  setText(initial);
                }}
              >
                Discard changes
              </button>
            ) : null}
            {applyError && applyCauses.length === 0 ? (
              <span className="field-error" role="alert">
                {errorMessage(applyError)}
              </span>
            ) : null}
          </div>
        ) : (
          <p className="muted">Read-only: your role cannot change policies.</p>
        )}
      </div>
      <aside className="editor-side" aria-label="Preview">
        <PreviewPanel
          spec={liveDraft.ok ? liveDraft.object.spec : undefined}
          policyName={name ?? draftName(liveDraft)}
        />
      </aside>
    </div>
  );
}

function ValidationBadge(props: {
  canWrite: boolean;
  checking: boolean;
  syntaxError: string | undefined;
  result: { valid: boolean } | undefined;
  error: unknown;
}) {
  let badge = <Pill tone="neutral">not validated</Pill>;
  if (props.syntaxError) badge = <Pill tone="bad">YAML error</Pill>;
  else if (!props.canWrite) badge = <Pill tone="neutral">read-only</Pill>;
  else if (props.checking) badge = <Pill tone="info">validating…</Pill>;
  else if (props.error) badge = <Pill tone="warn">validation unavailable</Pill>;
  else if (props.result?.valid) badge = <Pill tone="good">valid (dry run)</Pill>;
  else if (props.result) badge = <Pill tone="bad">invalid</Pill>;
  return (
    <span className="validation" role="status" aria-live="polite">
      {badge}
      {props.syntaxError ? <span className="field-error"> {props.syntaxError}</span> : null}
    </span>
  );
}

/** A new policy's name as the draft has it, so a preview on a gateway leaves its stored twin out. */
function draftName(draft: ReturnType<typeof parseDraft>): string | undefined {
  if (!draft.ok) return undefined;
  const metadata = draft.object.metadata;
  const name =
    metadata && typeof metadata === 'object' ? (metadata as { name?: unknown }).name : undefined;
  return ResourceName.safeParse(name).success ? (name as string) : undefined;
}
