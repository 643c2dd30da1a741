import { useState } from 'react';
import { prettyJson } from '../../../shared/lib/pretty-json.ts';
import { CopyButton } from '../../../shared/ui/copy-button.tsx';
import { Section } from '../../../shared/ui/page.tsx';

/**
 * The receipt exactly as stored, as JSON: what auditors quote and diff. Rendered only when
 * opened (a receipt with many tools is a lot of text to lay out on every visit).
 */
export function RawJsonSection(props: { value: unknown; name: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Section
      title="Raw JSON"
      actions={
        <button
          type="button"
          className="button"
          aria-expanded={open}
          aria-controls="raw-json"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? 'Hide JSON' : 'Show JSON'}
        </button>
      }
    >
      {open ? <RawJson value={props.value} name={props.name} /> : null}
    </Section>
  );
}

function RawJson(props: { value: unknown; name: string }) {
  const text = prettyJson(props.value);
  return (
    <div id="raw-json">
      <CopyButton text={text} label="Copy JSON" />
      {/* A read-only text area: focusable and scrollable by keyboard, selectable, labelled. */}
      <textarea
        className="raw-json"
        readOnly
        value={text}
        rows={24}
        spellCheck={false}
        aria-label={`${props.name} as JSON`}
      />
    </div>
  );
}
