import { useEffect, useState } from 'react';

/**
 * Copies `text` and says so ("Copied", announced to screen readers), or says it could not (an
 * insecure origin has no clipboard API): the click never silently does nothing.
 */
export function CopyButton(props: { text: string; label: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(props.text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" className={props.className ?? 'button'} onClick={() => void copy()}>
      {props.label}
      <span aria-live="polite" className="copy-feedback">
        {state === 'copied' ? ' ✓ Copied' : state === 'failed' ? ' (copy failed)' : ''}
      </span>
    </button>
  );
}
