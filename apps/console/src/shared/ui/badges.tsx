import type { ReactNode } from 'react';

/**
 * A schema or revision hash, shortened. It is an identifier, so it looks like one (monospace,
 * neutral) and never like a status pill; a small swatch coloured by the hash itself lets equal
 * hashes look alike at a glance and a changed one stand out.
 */
export function HashBadge(props: { hash: string | null | undefined; label?: string }) {
  if (!props.hash) return <span className="muted">—</span>;
  const hex = props.hash.replace(/^sha256:/, '');
  const hue = Number.parseInt(hex.slice(0, 4), 16) % 360;
  return (
    <code
      className="hash-badge"
      title={props.hash}
      style={{ '--hash-hue': hue } as React.CSSProperties}
    >
      <span className="hash-swatch" aria-hidden="true" />
      <span className="sr-only">{props.label ?? 'hash'} </span>
      {hex.slice(0, 12)}
    </code>
  );
}

export type Tone = 'good' | 'bad' | 'warn' | 'info' | 'neutral';

export function Pill(props: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`pill pill-${props.tone ?? 'neutral'}`} title={props.title}>
      {props.children}
    </span>
  );
}

export function Labels(props: { labels: Record<string, string> | undefined }) {
  const entries = Object.entries(props.labels ?? {});
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <span className="labels">
      {entries.map(([key, value]) => (
        <span className="label-chip" key={key}>
          {key}={value}
        </span>
      ))}
    </span>
  );
}

/** A timestamp shown relative to now, the exact time on hover. */
export function Time(props: { value: string | null | undefined; now?: number }) {
  if (!props.value) return <span className="muted">never</span>;
  const date = new Date(props.value);
  return (
    <time dateTime={props.value} title={date.toISOString()}>
      {relativeTime(date, props.now ?? Date.now())}
    </time>
  );
}

export function relativeTime(date: Date, now: number): string {
  const seconds = Math.round((now - date.getTime()) / 1000);
  const abs = Math.abs(seconds);
  const suffix = seconds >= 0 ? 'ago' : 'from now';
  if (abs < 45) return seconds >= 0 ? 'just now' : 'in a moment';
  if (abs < 90 * 60) return `${Math.round(abs / 60)} min ${suffix}`;
  if (abs < 36 * 3600) return `${Math.round(abs / 3600)} h ${suffix}`;
  if (abs < 30 * 86400) return `${Math.round(abs / 86400)} d ${suffix}`;
  return date.toISOString().slice(0, 10);
}
