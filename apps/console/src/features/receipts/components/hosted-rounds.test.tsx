import { render, screen, within } from '@testing-library/react';
import type { Receipt } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { formatMs, HostedRoundsSection } from './hosted-rounds.tsx';

const hash = (c: string) => `sha256:${c.repeat(64)}`;

const call = (over: Record<string, unknown>) => ({
  id: 'call_1',
  name: 'tool_info',
  tool: 'tool_info',
  executed_by: 'wardwright',
  fidelity: 'emulated',
  arguments_hash: hash('a'),
  result_hash: hash('b'),
  is_error: false,
  outcome: 'ok',
  duration_ms: 3,
  ...over,
});

const receipt = (hosted: unknown) => ({ hosted }) as unknown as Receipt;

describe('HostedRoundsSection', () => {
  it('shows each round on the timeline with its calls, outcomes, hashes and redactions', () => {
    render(
      <HostedRoundsSection
        receipt={receipt({
          rounds: [
            {
              round: 1,
              started_ms: 420,
              duration_ms: 4,
              upstream_ms: 900,
              calls: [call({})],
              usage: { input_tokens: 1200, output_tokens: 40 },
            },
            {
              round: 2,
              started_ms: 1330,
              duration_ms: 5100,
              calls: [
                call({
                  id: 'call_2',
                  name: 'approved_web_search',
                  tool: 'approved-web-search',
                  status: 200,
                  duration_ms: 820,
                  redacted_paths: ['debug.token', 'results.0.tracking'],
                }),
                call({
                  id: 'call_3',
                  name: 'approved_web_search',
                  tool: 'approved-web-search',
                  outcome: 'timeout',
                  is_error: true,
                  result_hash: undefined,
                  duration_ms: 5000,
                }),
              ],
            },
          ],
          budget: { max_calls: 8, max_rounds: 4, max_added_latency_ms: 30_000 },
        })}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Hosted rounds (2)' })).toBeTruthy();
    const timeline = screen.getByRole('list', { name: 'Hosted rounds timeline' });
    const [first, second] = within(timeline).getAllByRole('listitem');
    expect(first?.textContent).toContain('Round 1');
    expect(first?.textContent).toContain('started at +420 ms');
    expect(first?.textContent).toContain('provider 900 ms');
    expect(first?.textContent).toContain('tokens 1200 in / 40 out');
    const rows = within(second as HTMLElement).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]?.textContent).toContain('approved_web_search (approved-web-search)');
    expect(within(rows[1] as HTMLElement).getByText('ok')).toBeTruthy();
    expect(rows[1]?.textContent).toContain('200');
    expect(rows[1]?.textContent).toContain('820 ms');
    expect(within(rows[1] as HTMLElement).getByText('debug.token')).toBeTruthy();
    expect(within(rows[1] as HTMLElement).getByText('results.0.tracking')).toBeTruthy();
    expect(within(rows[2] as HTMLElement).getByText('timeout')).toBeTruthy();
    expect(rows[2]?.textContent).toContain('nothing came back');
    expect(screen.getByText('3 of at most 8')).toBeTruthy();
    expect(screen.getByText('2 of at most 4')).toBeTruthy();
    expect(screen.getByText('at most 30.0 s')).toBeTruthy();
    expect(screen.queryByTestId('hosted-exhausted')).toBeNull();
  });

  it('says which budget stopped the loop', () => {
    render(
      <HostedRoundsSection
        receipt={receipt({
          rounds: [{ round: 1, started_ms: 10, duration_ms: 2, calls: [call({})] }],
          budget: { max_calls: 1, max_rounds: 4, max_added_latency_ms: 1000 },
          exhausted: 'max_calls',
        })}
      />,
    );
    const note = screen.getByTestId('hosted-exhausted');
    expect(note.textContent).toContain('exhausted: max_calls');
    expect(note.textContent).toContain('the most hosted calls per request');
  });

  it('renders nothing for a receipt without hosted rounds', () => {
    const { container } = render(<HostedRoundsSection receipt={{} as Receipt} />);
    expect(container.textContent).toBe('');
  });

  it.each([
    [4, '4 ms'],
    [1234, '1.23 s'],
    [30_000, '30.0 s'],
    [125_000, '2 min 5 s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });
});
