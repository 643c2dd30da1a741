import { fireEvent, screen } from '@testing-library/react';
import type { Receipt } from '@toolgate/core';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { ReceiptPage } from './receipt-page.tsx';

const API = '/apis/toolgate.dev/v1';
const HASH = (c: string) => `sha256:${c.repeat(64)}`;

const BLOCKED: Receipt = {
  schema: 'toolgate.receipt.v2',
  id: 'rcpt-blocked',
  gateway: 'edge-a',
  surface: 'openai-chat',
  model: 'gpt-test',
  stream: false,
  timestamps: { received_at: '2026-01-05T10:00:00.000Z', completed_at: '2026-01-05T10:00:01.000Z' },
  latency_ms: { total: 1, mediation: 0.1, upstream: 0.9 },
  identity: { human: 'alice', binding: 'verified' },
  bundle: { etag: HASH('e'), policies: [] },
  outcome: { status: 200 },
  tools: [],
  response: {
    tool_calls: [
      {
        id: 'call_0',
        name: 'create_pull_request',
        arguments_hash: HASH('a'),
        action_id: 'act_1',
        policy_state: 'blocked',
        reason: 'hidden',
      },
    ],
    hosted_tool_events: [],
  },
  redacted_paths: [],
  prev_hash: null,
  hash: HASH('f'),
};

function renderReceipt(receipt: Receipt) {
  return renderWithApi(
    <Routes>
      <Route path="/receipts/:id" element={<ReceiptPage />} />
    </Routes>,
    {
      route: `/receipts/${receipt.id}`,
      responses: {
        [`GET ${API}/receipts/${receipt.id}`]: { body: { seq: '7', receipt } },
        [`GET ${API}/receipts/${receipt.id}/tool-links`]: { body: { items: [] } },
        [`GET ${API}/gateways/edge-a/receipts/verify`]: {
          body: { gateway: 'edge-a', valid: true, checked: 7 },
        },
      },
    },
  );
}

describe('receipt page headline and tools', () => {
  it('headlines a blocked call in a 200 answer as blocked, in a bad tone', async () => {
    renderReceipt(BLOCKED);
    const headline = await screen.findByTestId('outcome-headline');
    expect(headline.textContent).toBe('Outcome blocked: create_pull_request (hidden)');
    expect(headline.querySelector('.pill-bad')).not.toBeNull();
    expect(document.querySelector('.pill-good')?.textContent ?? '').not.toBe('200');
  });

  it('headlines a call waiting on approval as withheld', async () => {
    const [blocked] = BLOCKED.response?.tool_calls ?? [];
    if (!blocked) throw new Error('fixture has a call');
    renderReceipt({
      ...BLOCKED,
      response: {
        tool_calls: [
          { ...blocked, name: 'send_email', policy_state: 'deferred', reason: 'rule:mail' },
        ],
        hosted_tool_events: [],
      },
    });
    const headline = await screen.findByTestId('outcome-headline');
    expect(headline.textContent).toContain('withheld: send_email (approval pending)');
  });

  it("shows a typed call's capability and a hosted event's server and container", async () => {
    renderReceipt({
      ...BLOCKED,
      response: {
        tool_calls: [
          {
            id: 'call_1',
            name: 'computer',
            arguments_hash: HASH('b'),
            action_id: 'act_2',
            policy_state: 'allowed',
            capability: 'wardwright.computer_use.v1',
          },
        ],
        hosted_tool_events: [
          {
            name: 'mcp',
            capability: 'wardwright.remote_mcp.v1',
            provider_type: 'mcp_list_tools',
            fidelity: 'normalized',
            policy_state: 'allowed',
            server: 'docs',
          },
          {
            name: 'code_interpreter',
            capability: 'wardwright.code_execution.v1',
            provider_type: 'code_interpreter_call',
            fidelity: 'normalized',
            policy_state: 'allowed',
            container: 'cntr_42',
          },
        ],
      },
    } as Receipt);
    const calls = await screen.findByRole('table', { name: 'Tool calls' });
    expect(calls.textContent).toContain('wardwright.computer_use.v1');
    expect(screen.getByText('docs').closest('li')?.textContent).toContain('server docs');
    expect(screen.getByText('cntr_42').closest('li')?.textContent).toContain('container cntr_42');
  });

  it('copies the id, saying so, and shows the raw JSON on request', async () => {
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    renderReceipt(BLOCKED);
    fireEvent.click(await screen.findByRole('button', { name: /Copy id/ }));
    expect(await screen.findByText(/Copied/)).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith('rcpt-blocked');
    fireEvent.click(screen.getByRole('button', { name: 'Show JSON' }));
    const json = screen.getByLabelText('Receipt rcpt-blocked as JSON') as HTMLTextAreaElement;
    expect(JSON.parse(json.value)).toMatchObject({ id: 'rcpt-blocked', outcome: { status: 200 } });
  });

  it('shows the hosted rounds of a request after the response, and none without them', async () => {
    renderReceipt({
      ...BLOCKED,
      hosted: {
        rounds: [
          {
            round: 1,
            started_ms: 300,
            duration_ms: 12,
            upstream_ms: 640,
            calls: [
              {
                id: 'call_h1',
                name: 'approved_web_search',
                tool: 'approved-web-search',
                executed_by: 'wardwright',
                fidelity: 'emulated',
                arguments_hash: HASH('1'),
                result_hash: HASH('2'),
                is_error: false,
                outcome: 'ok',
                status: 200,
                duration_ms: 11,
                redacted_paths: ['debug.token'],
              },
            ],
          },
        ],
        budget: { max_calls: 4, max_rounds: 2, max_added_latency_ms: 10_000 },
        exhausted: 'max_rounds',
      },
    });
    const heading = await screen.findByRole('heading', { name: 'Hosted rounds (1)' });
    const section = heading.closest('section') as HTMLElement;
    expect(section.textContent).toContain('approved_web_search');
    expect(section.textContent).toContain('debug.token');
    expect(section.textContent).toContain('exhausted: max_rounds');
  });

  it('has no hosted rounds section for a request without a tool loop', async () => {
    renderReceipt(BLOCKED);
    await screen.findByTestId('outcome-headline');
    expect(screen.queryByRole('heading', { name: /Hosted rounds/ })).toBeNull();
  });
});
