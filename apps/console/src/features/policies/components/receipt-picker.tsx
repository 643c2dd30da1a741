import { useState } from 'react';
import { errorMessage } from '../../../shared/api/api-client.tsx';
import { useDebounced } from '../../../shared/lib/use-debounced.ts';
import { Time } from '../../../shared/ui/badges.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { PICKER_RECEIPTS, useRecentReceipts } from '../api/list-preview-targets.ts';

const MAX_TOOLS_SHOWN = 4;

/**
 * Picks a recorded receipt to replay: the newest ones, narrowed by a tool-name search, each
 * with when, where and which tools — no receipt id to copy and paste.
 */
export function ReceiptPicker(props: { value: string; onChange: (id: string) => void }) {
  const [search, setSearch] = useState('');
  const toolContains = useDebounced(search.trim(), 300);
  const receipts = useRecentReceipts(toolContains, true);
  const items = receipts.data ?? [];
  return (
    <div className="receipt-picker">
      <Field label="Find receipts by tool name" hint={`the ${PICKER_RECEIPTS} newest that match`}>
        {(control) => (
          <input
            {...control}
            type="search"
            value={search}
            maxLength={64}
            onChange={(e) => setSearch(e.target.value)}
          />
        )}
      </Field>
      {receipts.error ? (
        <p className="field-error" role="alert">
          {errorMessage(receipts.error)}
        </p>
      ) : null}
      <fieldset className="receipt-choices">
        <legend>Receipt to replay</legend>
        {receipts.isPending ? <p className="muted">Loading receipts…</p> : null}
        {!receipts.isPending && items.length === 0 ? (
          <p className="muted">
            {toolContains
              ? `No receipts with a tool containing “${toolContains}”.`
              : 'No receipts yet.'}
          </p>
        ) : null}
        {items.map((receipt) => (
          <label key={receipt.id} className="receipt-choice">
            <input
              type="radio"
              name="preview-receipt"
              value={receipt.id}
              checked={props.value === receipt.id}
              onChange={() => props.onChange(receipt.id)}
            />
            <span>
              <Time value={receipt.receivedAt} /> · {receipt.gateway} · {receipt.model}
              <br />
              <span className="muted">
                {receipt.tools.slice(0, MAX_TOOLS_SHOWN).join(', ') || 'no tools'}
                {receipt.tools.length > MAX_TOOLS_SHOWN
                  ? ` +${receipt.tools.length - MAX_TOOLS_SHOWN}`
                  : ''}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
    </div>
  );
}
