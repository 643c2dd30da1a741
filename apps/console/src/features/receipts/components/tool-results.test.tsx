import { screen, within } from '@testing-library/react';
import type { Receipt } from '@toolgate/core';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { ReceiptPage } from './receipt-page.tsx';
import { formatElapsed, linkedReceipts } from './tool-links.ts';

const API = '/apis/toolgate.dev/v1';
const HASH = (c: string) => `sha256:${c.repeat(64)}`;

function receipt(id: string, extra: Partial<Receipt>): Receipt {
  return {
    schema: 'toolgate.receipt.v2',
    id,
    gateway: 'edge-a',
    surface: 'openai-chat',
    model: 'gpt-test',
    stream: false,
    timestamps: {
      received_at: '2026-01-05T10:00:00.000Z',
      completed_at: '2026-01-05T10:00:01.000Z',
    },
    latency_ms: { total: 1, mediation: 0.1, upstream: 0.9 },
    identity: { human: 'alice', binding: 'verified' },
    bundle: { etag: HASH('e'), policies: [] },
    outcome: { status: 200 },
    tools: [],
    redacted_paths: [],
    prev_hash: null,
    hash: HASH('f'),
    ...extra,
  };
}

const TURN_1 = receipt('rcpt-turn-1', {
  response: {
    tool_calls: [
      {
        id: 'call_0',
        name: 'send_email',
        arguments_hash: HASH('a'),
        action_id: 'act_1',
        policy_state: 'allowed',
      },
      {
        id: 'call_1',
        name: 'send_email',
        arguments_hash: HASH('b'),
        action_id: 'act_2',
        policy_state: 'allowed',
      },
    ],
    hosted_tool_events: [],
  },
});
const TURN_2 = receipt('rcpt-turn-2', {
  tool_results: [
    {
      tool_call_id: 'call_0',
      action_id: 'act_1',
      result_hash: HASH('d'),
      is_error: true,
      elapsed_ms: 12_400,
    },
    { tool_call_id: 'call_9', result_hash: HASH('c'), is_error: false, elapsed_ms: null },
  ],
});

function renderReceipt(current: Receipt, links: unknown[]) {
  return renderWithApi(
    <Routes>
      <Route path="/receipts/:id" element={<ReceiptPage />} />
    </Routes>,
    {
      route: `/receipts/${current.id}`,
      responses: {
        [`GET ${API}/receipts/${current.id}`]: { body: { seq: '7', receipt: current } },
        [`GET ${API}/receipts/${current.id}/tool-links`]: { body: { items: links } },
        [`GET ${API}/gateways/edge-a/receipts/verify`]: {
          body: { gateway: 'edge-a', valid: true, checked: 7 },
        },
      },
    },
  );
}

const link = (side: 'call' | 'result', toolCallId: string, other: string) => ({
  toolCallId,
  side,
  receipt: other,
  gateway: 'edge-a',
  receivedAt: '2026-01-05T10:00:03.000Z',
});

describe('receipt page: calls and their results', () => {
  it('links a released call to the receipt of its result', async () => {
    renderReceipt(TURN_1, [link('call', 'call_0', 'rcpt-turn-2')]);
    const calls = await screen.findByRole('table', { name: 'Tool calls' });
    const [first, second] = within(calls).getAllByRole('row').slice(1);
    const result = await within(first as HTMLElement).findByRole('link', { name: 'result →' });
    expect(result.getAttribute('href')).toBe('/receipts/rcpt-turn-2');
    expect(within(second as HTMLElement).getByText('no result yet')).toBeTruthy();
  });

  it('shows each result with its hash, outcome and elapsed time, linked back to its call', async () => {
    renderReceipt(TURN_2, [link('result', 'call_0', 'rcpt-turn-1')]);
    const table = await screen.findByRole('table', { name: 'Tool results' });
    const known = within(table).getByRole('row', { name: /call_0/ });
    const back = await within(known).findByRole('link', { name: '← call' });
    expect(back.getAttribute('href')).toBe('/receipts/rcpt-turn-1');
    expect(within(known).getByText('error')).toBeTruthy();
    expect(within(known).getByText('12.4 s')).toBeTruthy();
    expect(within(known).getByText('dddddddddddd')).toBeTruthy();
    const unknown = within(table).getByRole('row', { name: /call_9/ });
    expect(within(unknown).getByText('unknown call')).toBeTruthy();
    expect(within(unknown).getByText('unknown')).toBeTruthy();
  });

  it('has no results section when the agent sent none', async () => {
    renderReceipt(TURN_1, []);
    await screen.findByRole('table', { name: 'Tool calls' });
    expect(screen.queryByRole('table', { name: 'Tool results' })).toBeNull();
  });
});

describe('tool link helpers', () => {
  it.each([
    [null, 'unknown'],
    [850.4, '850 ms'],
    [12_400, '12.4 s'],
    [185_000, '3 min 5 s'],
    [7_440_000, '2 h 4 min'],
  ])('formatElapsed(%s) = %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });

  it('picks the links of one side and call, once each', () => {
    const links = [
      link('call', 'a', 'r2'),
      link('call', 'a', 'r2'),
      link('call', 'b', 'r3'),
      link('result', 'a', 'r0'),
    ];
    expect(linkedReceipts(links, 'call', 'a')).toEqual(['r2']);
    expect(linkedReceipts(links, 'result', 'a')).toEqual(['r0']);
    expect(linkedReceipts(undefined, 'call', 'a')).toEqual([]);
  });
});
