import { MediationMode } from '@toolgate/core';
import { humanMessage } from '../../../shared/editor/human-errors.ts';
import { CodeSpans } from '../../../shared/ui/code-spans.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import {
  applyFormFields,
  type FormFields,
  fieldsForAction,
  isCallTime,
  isOneOf,
  partsOnlyInYaml,
  RULE_ACTIONS,
  type RuleFields,
  selectorError,
  toFormFields,
} from '../draft/form-model.ts';
import { CallTimeFields } from './call-time-fields.tsx';

/**
 * The form view of a policy: the common fields as controls, each with the server's error for
 * its path. Fields the form does not show stay in the YAML untouched.
 */
export function PolicyForm(props: {
  object: Record<string, unknown>;
  onChange: (object: Record<string, unknown>) => void;
  errors: ReadonlyArray<{ field: string; message: string }>;
  nameLocked: boolean;
  readOnly: boolean;
}) {
  const fields = toFormFields(props.object);
  const update = (patch: Partial<FormFields>) =>
    props.onChange(applyFormFields(props.object, { ...fields, ...patch }));
  const updateRule = (index: number, patch: Partial<RuleFields>) =>
    update({ rules: fields.rules.map((r, i) => (i === index ? { ...r, ...patch } : r)) });
  const errorAt = (...paths: string[]) =>
    props.errors
      .filter((e) =>
        paths.some(
          (p) => e.field === p || e.field.startsWith(`${p}.`) || e.field.startsWith(`${p}[`),
        ),
      )
      .map((e) => humanMessage(e.message))
      .join('; ') || undefined;
  const disabled = props.readOnly;
  const onlyInYaml = partsOnlyInYaml(props.object);

  return (
    <form
      className="policy-form"
      onSubmit={(event) => event.preventDefault()}
      aria-label="Policy form"
    >
      {onlyInYaml.length > 0 ? (
        <div className="info-notice" role="note" aria-label="Only in the YAML">
          The form cannot edit these parts; they are kept as the YAML has them (edit them in the
          YAML view):
          <ul>
            {onlyInYaml.map((part) => (
              <li key={part}>
                <CodeSpans text={part} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="form-grid">
        <Field label="Name" error={errorAt('metadata.name')}>
          {(control) => (
            <input
              {...control}
              value={fields.name}
              disabled={disabled || props.nameLocked}
              onChange={(e) => update({ name: e.target.value })}
            />
          )}
        </Field>
        <Field label="Labels" hint="key=value, comma separated" error={errorAt('metadata.labels')}>
          {(control) => (
            <input
              {...control}
              value={fields.labels}
              disabled={disabled}
              onChange={(e) => update({ labels: e.target.value })}
            />
          )}
        </Field>
        <Field
          label="Mode"
          error={notAChoice(fields.mode, MediationMode.options, 'mode') ?? errorAt('spec.mode')}
        >
          {(control) => (
            <select
              {...control}
              value={fields.mode}
              disabled={disabled}
              onChange={(e) => update({ mode: e.target.value })}
            >
              <ChoiceOptions value={fields.mode} options={MediationMode.options} />
            </select>
          )}
        </Field>
        <Field label="Priority" error={errorAt('spec.priority')}>
          {(control) => (
            <input
              {...control}
              inputMode="numeric"
              value={fields.priority}
              disabled={disabled}
              onChange={(e) => update({ priority: e.target.value })}
            />
          )}
        </Field>
        <Field
          label="Gateway selector"
          hint="e.g. env=prod,region in (eu,us); empty selects every gateway"
          error={selectorError(fields.selector) ?? errorAt('spec.selector')}
        >
          {(control) => (
            <input
              {...control}
              value={fields.selector}
              disabled={disabled}
              onChange={(e) => update({ selector: e.target.value })}
            />
          )}
        </Field>
        <Field
          label="Unknown identities"
          error={
            notAChoice(fields.unknownIdentities, UNKNOWN_IDENTITIES, 'setting') ??
            errorAt('spec.unknownIdentities')
          }
        >
          {(control) => (
            <select
              {...control}
              value={fields.unknownIdentities}
              disabled={disabled}
              onChange={(e) => update({ unknownIdentities: e.target.value })}
            >
              <option value="unverified">mark unverified</option>
              <option value="reject">reject</option>
              {isOneOf(fields.unknownIdentities, UNKNOWN_IDENTITIES) ? null : (
                <option value={fields.unknownIdentities}>
                  {fields.unknownIdentities || '(none)'} (not valid)
                </option>
              )}
            </select>
          )}
        </Field>
      </div>

      <fieldset className="rules">
        <legend>Rules</legend>
        {errorAt('spec.rules') && fields.rules.length === 0 ? (
          <p className="field-error" role="alert">
            {errorAt('spec.rules')}
          </p>
        ) : null}
        {fields.rules.map((rule, index) => {
          const at = `spec.rules[${index}]`;
          return (
            <fieldset className="rule" key={index}>
              <legend>
                Rule {index + 1}
                {rule.id ? `: ${rule.id}` : ''}
              </legend>
              <div className="form-grid">
                <Field label="Rule id" error={errorAt(`${at}.id`)}>
                  {(control) => (
                    <input
                      {...control}
                      value={rule.id}
                      disabled={disabled}
                      onChange={(e) => updateRule(index, { id: e.target.value })}
                    />
                  )}
                </Field>
                <Field
                  label="Action"
                  error={notAChoice(rule.action, RULE_ACTIONS, 'action') ?? errorAt(`${at}.action`)}
                >
                  {(control) => (
                    <select
                      {...control}
                      value={rule.action}
                      disabled={disabled}
                      onChange={(e) => updateRule(index, fieldsForAction(rule, e.target.value))}
                    >
                      <ChoiceOptions value={rule.action} options={RULE_ACTIONS} />
                    </select>
                  )}
                </Field>
                <Field
                  label="Tool name"
                  hint="exact, glob (*) or /regex/"
                  error={errorAt(`${at}.match`)}
                >
                  {(control) => (
                    <input
                      {...control}
                      value={rule.name}
                      disabled={disabled}
                      onChange={(e) => updateRule(index, { name: e.target.value })}
                    />
                  )}
                </Field>
                {rule.action === 'rename' ? (
                  <Field label="Provider alias" error={errorAt(`${at}.alias`)}>
                    {(control) => (
                      <input
                        {...control}
                        value={rule.alias}
                        disabled={disabled}
                        onChange={(e) => updateRule(index, { alias: e.target.value })}
                      />
                    )}
                  </Field>
                ) : null}
                {rule.action === 'augment' ? (
                  <Field
                    label="Append to description"
                    error={errorAt(`${at}.description_append`, `${at}.parameters`)}
                  >
                    {(control) => (
                      <input
                        {...control}
                        value={rule.descriptionAppend}
                        disabled={disabled}
                        onChange={(e) => updateRule(index, { descriptionAppend: e.target.value })}
                      />
                    )}
                  </Field>
                ) : null}
                {rule.action === 'replace' ? (
                  <p className="field-hint">
                    The replacement declaration is edited in the YAML view (<code>tool:</code>).
                    {errorAt(`${at}.tool`) ? (
                      <span className="field-error"> {errorAt(`${at}.tool`)}</span>
                    ) : null}
                  </p>
                ) : null}
                <Field
                  label="Condition (when)"
                  hint={
                    isCallTime(rule.action)
                      ? 'CEL, e.g. args.repo != "acme/app"; empty applies always'
                      : 'CEL, e.g. identity.human.startsWith("contractor-"); empty applies always'
                  }
                  error={errorAt(`${at}.when`)}
                >
                  {(control) => (
                    // A textarea: a condition may span lines, and an input would drop the breaks.
                    <textarea
                      {...control}
                      className="mono"
                      spellCheck={false}
                      rows={Math.min(6, rule.when.split('\n').length)}
                      value={rule.when}
                      disabled={disabled}
                      onChange={(e) => updateRule(index, { when: e.target.value })}
                    />
                  )}
                </Field>
                <CallTimeFields
                  rule={rule}
                  at={at}
                  errorAt={errorAt}
                  disabled={disabled}
                  onChange={(patch) => updateRule(index, patch)}
                />
                <Field label="Description" error={errorAt(`${at}.description`)}>
                  {(control) => (
                    <input
                      {...control}
                      value={rule.description}
                      disabled={disabled}
                      onChange={(e) => updateRule(index, { description: e.target.value })}
                    />
                  )}
                </Field>
              </div>
              <div className="rule-actions">
                <label className="checkbox">
                  <input
                    type="checkbox"
                    checked={rule.enabled}
                    disabled={disabled}
                    onChange={(e) => updateRule(index, { enabled: e.target.checked })}
                  />{' '}
                  Enabled
                </label>
                {!disabled ? (
                  <button
                    type="button"
                    className="button button-quiet"
                    onClick={() => update({ rules: fields.rules.filter((_, i) => i !== index) })}
                  >
                    Remove rule {index + 1}
                  </button>
                ) : null}
              </div>
            </fieldset>
          );
        })}
        {!disabled ? (
          <button
            type="button"
            className="button"
            onClick={() =>
              update({
                rules: [
                  ...fields.rules,
                  {
                    source: -1,
                    id: `rule-${fields.rules.length + 1}`,
                    action: 'hide',
                    name: '',
                    description: '',
                    enabled: true,
                    alias: '',
                    descriptionAppend: '',
                    when: '',
                    message: '',
                    approvalTtl: '',
                    limitCalls: '',
                    limitPer: '',
                    limitBy: '',
                  },
                ],
              })
            }
          >
            Add rule
          </button>
        ) : null}
      </fieldset>
    </form>
  );
}

const UNKNOWN_IDENTITIES = ['unverified', 'reject'];

/**
 * The options of a select, plus the YAML's own value when it is none of them: a select must
 * never show an option the YAML does not hold (it would fall back to the first one).
 */
function ChoiceOptions(props: { value: string; options: ReadonlyArray<string> }) {
  return (
    <>
      {isOneOf(props.value, props.options) ? null : (
        <option value={props.value}>{props.value || '(none)'} (not valid)</option>
      )}
      {props.options.map((option) => (
        <option key={option}>{option}</option>
      ))}
    </>
  );
}

/** The message for a YAML value that is none of the choices, in words. */
function notAChoice(value: string, options: ReadonlyArray<string>, what: string) {
  if (isOneOf(value, options)) return undefined;
  return value
    ? `the YAML has ${what} "${value}", which is not one of ${options.join(', ')}: choose one`
    : `the YAML has no valid ${what}: choose one`;
}
