import { Link } from 'react-router';

export interface BarItem {
  key: string;
  label: string;
  /** Segments of the bar, e.g. blocked and withheld calls of one rule. */
  parts: Array<{ label: string; value: number; className: string }>;
  href: string;
}

/**
 * A ranked list drawn as bars in HTML: every row is a link into the receipts behind it, read by
 * screen readers as text, and it needs no chart library.
 */
export function BarList(props: { items: BarItem[]; label: string }) {
  const max = Math.max(1, ...props.items.map((item) => total(item)));
  return (
    <ol className="bar-list" aria-label={props.label}>
      {props.items.map((item) => (
        <li key={item.key}>
          <Link to={item.href} className="bar-row">
            <span className="bar-label mono">{item.label}</span>
            <span className="bar-track" aria-hidden="true">
              {item.parts.map((part) =>
                part.value > 0 ? (
                  <span
                    key={part.label}
                    className={`bar-fill ${part.className}`}
                    style={{ width: `${(part.value / max) * 100}%` }}
                  />
                ) : null,
              )}
            </span>
            <span className="bar-value">
              {item.parts
                .filter((part) => part.value > 0 || item.parts.length === 1)
                .map((part) =>
                  item.parts.length === 1
                    ? part.value.toLocaleString()
                    : `${part.value.toLocaleString()} ${part.label}`,
                )
                .join(', ')}
            </span>
          </Link>
        </li>
      ))}
    </ol>
  );
}

function total(item: BarItem): number {
  return item.parts.reduce((sum, part) => sum + part.value, 0);
}
