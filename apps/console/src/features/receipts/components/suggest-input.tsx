import type { ReceiptValueField } from '@toolgate/contract';
import { useId } from 'react';
import { useDebounced } from '../../../shared/lib/use-debounced.ts';
import { useReceiptValues } from '../api/receipt-facets.ts';

/**
 * A text filter with suggestions (a native `datalist`: keyboard and screen-reader behaviour come
 * with the browser) from the API's bounded list of values for the field, narrowed as one types.
 * Free text stays allowed: a value older than the suggestions' window is still a valid filter.
 */
export function SuggestInput(props: {
  field: ReceiptValueField;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  control: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string };
}) {
  const listId = useId();
  const typed = useDebounced(props.value, 250);
  const values = useReceiptValues(props.field, typed);
  return (
    <>
      <input
        {...props.control}
        type="search"
        list={listId}
        autoComplete="off"
        placeholder={props.placeholder ?? ''}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <datalist id={listId} data-testid={`suggestions-${props.field}`}>
        {(values.data?.items ?? []).map((value) => (
          <option key={value} value={value} />
        ))}
      </datalist>
    </>
  );
}
