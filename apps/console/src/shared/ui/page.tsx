import { type ReactNode, useEffect } from 'react';

/** A page's heading and its actions; sets the document title. */
export function PageHeader(props: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · Toolgate`;
  }, [props.title]);
  return (
    <header className="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.subtitle ? <p className="subtitle">{props.subtitle}</p> : null}
      </div>
      {props.actions ? <div className="actions">{props.actions}</div> : null}
    </header>
  );
}

export function Section(props: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="section" aria-label={props.title}>
      <div className="section-header">
        <h2>{props.title}</h2>
        {props.actions}
      </div>
      {props.children}
    </section>
  );
}
