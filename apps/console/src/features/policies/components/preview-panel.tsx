import type { MediationEffect } from '@toolgate/contract';
import { useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../../shared/api/api-client.tsx';
import { HashBadge, Pill } from '../../../shared/ui/badges.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { usePreviewGateways } from '../api/list-preview-targets.ts';
import { usePreviewPolicy } from '../api/preview-policy.ts';
import { ReceiptPicker } from './receipt-picker.tsx';

export const SAMPLE_REQUEST = JSON.stringify(
  {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Open a pull request fixing the flaky test.' }],
    tools: ['search_code', 'read_file', 'create_pull_request', 'delete_branch'].map((name) => ({
      type: 'function',
      function: {
        name,
        description: `${name.replaceAll('_', ' ')} in the repository`,
        parameters: {
          type: 'object',
          properties: { repo: { type: 'string' } },
          required: ['repo'],
        },
      },
    })),
  },
  null,
  2,
);

/**
 * Runs the draft against a sample request or a recorded receipt (picked from a list), alone or
 * on a gateway together with every policy that gateway runs: tools before and after.
 */
export function PreviewPanel(props: { spec: unknown; policyName?: string | undefined }) {
  const [source, setSource] = useState<'request' | 'receipt'>('request');
  const [request, setRequest] = useState(SAMPLE_REQUEST);
  const [receiptId, setReceiptId] = useState('');
  const [gateway, setGateway] = useState('');
  const [inputError, setInputError] = useState<string>();
  const preview = usePreviewPolicy();
  const gateways = usePreviewGateways();
  const target = gateway
    ? { gateway, ...(props.policyName ? { policyName: props.policyName } : {}) }
    : {};

  const run = () => {
    setInputError(undefined);
    if (props.spec === undefined) return setInputError('the draft is not valid YAML');
    if (source === 'receipt') {
      if (!receiptId) return setInputError('pick a receipt to replay');
      return preview.mutate({ spec: props.spec, source: { kind: 'receipt', receiptId }, target });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(request);
    } catch (error) {
      return setInputError(`sample request is not JSON: ${(error as Error).message}`);
    }
    preview.mutate({
      spec: props.spec,
      source: { kind: 'request', request: parsed as Record<string, unknown> },
      target,
    });
  };

  return (
    <section className="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <Field
        label="Run on"
        hint="a gateway: the draft together with every policy that gateway runs"
      >
        {(control) => (
          <select {...control} value={gateway} onChange={(e) => setGateway(e.target.value)}>
            <option value="">this draft alone</option>
            {(gateways.data ?? []).map((g) => (
              <option key={g.name} value={g.name}>
                {g.name}
                {Object.keys(g.labels).length > 0
                  ? ` (${Object.entries(g.labels)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(',')})`
                  : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset className="radio-row">
        <legend>Run the draft against</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="preview-source"
            checked={source === 'request'}
            onChange={() => setSource('request')}
          />{' '}
          a sample request
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="preview-source"
            checked={source === 'receipt'}
            onChange={() => setSource('receipt')}
          />{' '}
          a recorded receipt
        </label>
      </fieldset>
      {source === 'request' ? (
        <Field label="Sample request (OpenAI or Anthropic JSON)">
          {(control) => (
            <textarea
              {...control}
              className="mono"
              rows={10}
              value={request}
              onChange={(e) => setRequest(e.target.value)}
            />
          )}
        </Field>
      ) : (
        <ReceiptPicker value={receiptId} onChange={setReceiptId} />
      )}
      <button type="button" className="button" onClick={run} disabled={preview.isPending}>
        {preview.isPending ? 'Running…' : 'Run preview'}
      </button>
      {inputError ? (
        <p className="field-error" role="alert">
          {inputError}
        </p>
      ) : null}
      {preview.error ? (
        <p className="field-error" role="alert">
          {errorMessage(preview.error)}
        </p>
      ) : null}
      {preview.data ? <EffectView effect={preview.data} /> : null}
    </section>
  );
}

export function EffectView(props: { effect: MediationEffect }) {
  const { effect } = props;
  const afterNames = new Set(effect.after.map((t) => `${t.name}:${t.schema_hash}`));
  const beforeNames = new Set(effect.before.map((t) => `${t.name}:${t.schema_hash}`));
  const rules = effect.mediation?.applied_rules ?? [];
  const observed = effect.mediation?.observed_rules ?? [];
  return (
    <section className="effect" aria-label="Preview result">
      {effect.gateway ? <PoliciesThatRan effect={effect} /> : null}
      <p>
        Surface <code>{effect.surface}</code>
        {effect.mediation ? (
          <>
            {' '}
            · mode <code>{effect.mediation.mode}</code>
          </>
        ) : (
          ' · no change to the request'
        )}
      </p>
      <div className="two-columns">
        <div>
          <h3>Before ({effect.before.length})</h3>
          <ul className="tool-list" aria-label="Tools before">
            {effect.before.map((tool) => (
              <li
                key={`${tool.name}:${tool.schema_hash}`}
                className={afterNames.has(`${tool.name}:${tool.schema_hash}`) ? '' : 'changed'}
              >
                <code>{tool.name}</code>{' '}
                <HashBadge hash={tool.schema_hash} label={`schema of ${tool.name}`} />
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h3>Provider sees ({effect.after.length})</h3>
          <ul className="tool-list" aria-label="Tools after">
            {effect.after.length === 0 ? <li className="muted">no tools</li> : null}
            {effect.after.map((tool) => (
              <li
                key={`${tool.name}:${tool.schema_hash}`}
                className={beforeNames.has(`${tool.name}:${tool.schema_hash}`) ? '' : 'changed'}
              >
                <code>{tool.name}</code>{' '}
                <HashBadge hash={tool.schema_hash} label={`schema of ${tool.name}`} />
              </li>
            ))}
          </ul>
        </div>
      </div>
      {rules.length + observed.length > 0 ? (
        <>
          <h3>Rules</h3>
          <ul>
            {rules.map((r) => (
              <li key={`a:${r.policy ?? ''}/${r.id}`}>
                <Pill tone="info">{r.action}</Pill> <code>{r.id}</code> →{' '}
                {r.matched_tools.join(', ')}
              </li>
            ))}
            {observed.map((r) => (
              <li key={`o:${r.policy ?? ''}/${r.id}`}>
                <Pill tone="neutral">would {r.action}</Pill> <code>{r.id}</code> →{' '}
                {r.matched_tools.join(', ')}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p className="muted">
        Tools marked are changed; see <Link to="/receipts">receipts</Link> for what real requests
        did.
      </p>
    </section>
  );
}

/** On a gateway: which policies ran, in order, and whether the draft was among them. */
function PoliciesThatRan(props: { effect: MediationEffect }) {
  const { effect } = props;
  return (
    <>
      {effect.draftSelected === false ? (
        <p className="info-notice" role="status">
          This draft’s selector does not select <code>{effect.gateway}</code>: it would not run
          there. Shown: the gateway’s policies without it.
        </p>
      ) : null}
      <p>
        On <code>{effect.gateway}</code>, in order:{' '}
        {(effect.policies ?? []).length === 0
          ? 'no policies'
          : (effect.policies ?? []).map((p, i) => (
              <span key={p.name}>
                {i > 0 ? ', ' : ''}
                <code>{p.name}</code> {p.draft ? '(this draft)' : `(generation ${p.generation})`}
              </span>
            ))}
      </p>
    </>
  );
}
