/** Text with `backquoted` parts shown as code: "rule 2: `match`" → rule 2: <code>match</code>. */
export function CodeSpans(props: { text: string }) {
  return (
    <>
      {props.text
        .split('`')
        .map((part, i) => (i % 2 === 1 ? <code key={`${i}:${part}`}>{part}</code> : part))}
    </>
  );
}
