import { type KeyboardEvent, type ReactNode, useRef } from 'react';

export interface TabItem<Id extends string> {
  id: Id;
  label: ReactNode;
}

/** Ids of a tab and its panel, so `TabPanel` and `Tabs` point at each other. */
export const tabId = (idBase: string, id: string) => `${idBase}-tab-${id}`;
export const panelId = (idBase: string, id: string) => `${idBase}-panel-${id}`;

/**
 * A tab bar after the WAI-ARIA tabs pattern: one tab stop (roving tabindex: only the selected
 * tab is in the Tab order), Left/Right move between tabs and wrap, Home/End go to the ends, and
 * selection follows focus (every panel here renders at once). Render the content in `TabPanel`.
 */
export function Tabs<Id extends string>(props: {
  label: string;
  idBase: string;
  tabs: ReadonlyArray<TabItem<Id>>;
  selected: Id;
  onSelect: (id: Id) => void;
  /** `tabs` (a bar above a page's content) or `segmented` (a compact switch in a toolbar). */
  variant?: 'tabs' | 'segmented';
}) {
  const refs = useRef(new Map<Id, HTMLButtonElement>());

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // From the tab that has focus (the pattern's rule), which is the selected one unless a key
    // came before the selection it caused re-rendered.
    const focused = props.tabs.findIndex((t) => refs.current.get(t.id) === event.target);
    const index = focused >= 0 ? focused : props.tabs.findIndex((t) => t.id === props.selected);
    const last = props.tabs.length - 1;
    const target =
      event.key === 'ArrowRight'
        ? index >= last
          ? 0
          : index + 1
        : event.key === 'ArrowLeft'
          ? index <= 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : undefined;
    const next = target === undefined ? undefined : props.tabs[target];
    if (!next) return;
    event.preventDefault();
    props.onSelect(next.id);
    refs.current.get(next.id)?.focus();
  };

  return (
    <div
      className={props.variant ?? 'tabs'}
      role="tablist"
      aria-label={props.label}
      onKeyDown={onKeyDown}
    >
      {props.tabs.map((t) => {
        const selected = t.id === props.selected;
        return (
          <button
            key={t.id}
            ref={(element) => {
              if (element) refs.current.set(t.id, element);
              else refs.current.delete(t.id);
            }}
            type="button"
            role="tab"
            id={tabId(props.idBase, t.id)}
            aria-selected={selected}
            aria-controls={panelId(props.idBase, t.id)}
            tabIndex={selected ? 0 : -1}
            className={selected ? 'active' : ''}
            onClick={() => props.onSelect(t.id)}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}

/**
 * The selected tab's content, labelled by its tab and reachable with Tab from the bar. A panel
 * that starts with a control of its own (an editor) passes `focusable={false}`: the control is
 * the next tab stop, and an extra stop on the panel would only be in the way.
 */
export function TabPanel(props: {
  idBase: string;
  id: string;
  className?: string;
  focusable?: boolean;
  children: ReactNode;
}) {
  return (
    <div
      role="tabpanel"
      id={panelId(props.idBase, props.id)}
      aria-labelledby={tabId(props.idBase, props.id)}
      tabIndex={props.focusable === false ? undefined : 0}
      className={props.className}
    >
      {props.children}
    </div>
  );
}
