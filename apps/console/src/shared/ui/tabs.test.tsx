import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { TabPanel, Tabs } from './tabs.tsx';

const TABS = [
  { id: 'edit', label: 'Editor' },
  { id: 'history', label: 'History' },
  { id: 'diff', label: 'Diff' },
] as const;
type Id = (typeof TABS)[number]['id'];

function Harness() {
  const [tab, setTab] = useState<Id>('edit');
  return (
    <>
      <Tabs label="Policy views" idBase="p" tabs={TABS} selected={tab} onSelect={setTab} />
      <TabPanel idBase="p" id={tab}>
        content of {tab}
      </TabPanel>
    </>
  );
}

const selected = () => screen.getByRole('tab', { selected: true });

describe('Tabs', () => {
  it('has one tab stop and a panel labelled by its tab', () => {
    render(<Harness />);
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((t) => t.getAttribute('tabindex'))).toEqual(['0', '-1', '-1']);
    const panel = screen.getByRole('tabpanel');
    expect(panel.getAttribute('aria-labelledby')).toBe(selected().id);
    expect(selected().getAttribute('aria-controls')).toBe(panel.id);
  });

  it('moves from the focused tab, even before the selection it caused has rendered', () => {
    // A router may render a navigation later (a transition): the next key must still start
    // from where focus is, not from the selection still on screen.
    const chosen: Id[] = [];
    render(
      <Tabs
        label="Policy views"
        idBase="p"
        tabs={TABS}
        selected="history"
        onSelect={(id) => chosen.push(id)}
      />,
    );
    fireEvent.keyDown(screen.getByRole('tab', { name: 'Diff' }), { key: 'ArrowRight' });
    expect(chosen).toEqual(['edit']);
  });

  it('moves with Left/Right (wrapping) and Home/End; selection and focus follow', () => {
    render(<Harness />);
    const list = screen.getByRole('tablist', { name: 'Policy views' });
    fireEvent.keyDown(list, { key: 'ArrowRight' });
    expect(selected().textContent).toBe('History');
    expect(document.activeElement).toBe(selected());
    expect(screen.getByRole('tabpanel').textContent).toBe('content of history');
    fireEvent.keyDown(list, { key: 'End' });
    expect(selected().textContent).toBe('Diff');
    fireEvent.keyDown(list, { key: 'ArrowRight' });
    expect(selected().textContent).toBe('Editor');
    fireEvent.keyDown(list, { key: 'ArrowLeft' });
    expect(selected().textContent).toBe('Diff');
    fireEvent.keyDown(list, { key: 'Home' });
    expect(selected().textContent).toBe('Editor');
    expect(screen.getAllByRole('tab').map((t) => t.getAttribute('tabindex'))).toEqual([
      '0',
      '-1',
      '-1',
    ]);
  });

  it('leaves other keys alone', () => {
    render(<Harness />);
    fireEvent.keyDown(screen.getByRole('tablist'), { key: 'ArrowDown' });
    expect(selected().textContent).toBe('Editor');
  });
});
