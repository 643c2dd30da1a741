import { fireEvent, screen, within } from '@testing-library/react';
import type { ReceiptSummary } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { ReceiptsPage } from './receipts-page.tsx';

const API = '/apis/toolgate.dev/v1';

const ROW: ReceiptSummary = {
  id: 'rcpt-1',
  gateway: 'edge-a',
  seq: '1',
  receivedAt: '2026-01-05T10:00:00.000Z',
  surface: 'openai-chat',
  model: 'gpt-test',
  stream: false,
  status: 200,
  outcome: 'blocked',
  identity: { human: 'alice', service: null, session: null, binding: 'verified' },
  tools: ['read_file', 'create_pull_request', 'delete_branch', 'list_issues'],
  calls: [
    { name: 'read_file', state: 'allowed' },
    { name: 'create_pull_request', state: 'blocked', reason: 'hidden' },
  ],
  callCount: 2,
  rules: ['guardrails/hide-pr-creation'],
  policies: ['guardrails'],
  hash: 'sha256:00',
};

function renderList(options: {
  rows: ReceiptSummary[];
  count: number;
  capped?: boolean;
  total?: number;
  route?: string;
}) {
  return renderWithApi(<ReceiptsPage />, {
    route: options.route ?? '/receipts',
    responses: {
      [`GET ${API}/receipts`]: { body: { items: options.rows, metadata: {} } },
      [`GET ${API}/receipt-count`]: ({ url }) => ({
        body: {
          count: url.search === '' ? (options.total ?? options.count) : options.count,
          capped: options.capped ?? false,
        },
      }),
      [`GET ${API}/receipt-values/gateway`]: {
        body: { items: ['edge-a', 'edge-b'], truncated: false },
      },
    },
  });
}

// jsdom lays nothing out: give the virtualized table's scroller a size so it renders rows.
const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
const clientWidth = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientWidth');
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
    configurable: true,
    get: () => 900,
  });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', {
    configurable: true,
    get: () => 1200,
  });
});
afterAll(() => {
  if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
  if (clientWidth) Object.defineProperty(HTMLElement.prototype, 'clientWidth', clientWidth);
});

describe('receipts list', () => {
  it('shows the tools called and the blocked one, not the offered set', async () => {
    renderList({ rows: [ROW], count: 1 });
    const row = await screen.findByRole('row', { name: /rcpt|edge-a/ });
    expect(within(row).getByText('blocked create_pull_request (hidden)')).toBeTruthy();
    expect(within(row).getByText('read_file')).toBeTruthy();
    expect(within(row).queryByText(/delete_branch/)).toBeNull();
    expect(within(row).getByText('blocked')).toBeTruthy();
    expect(within(row).getByText('2026-01-05', { exact: false })).toBeTruthy();
  });

  it('says "1,000+" past the count cap', async () => {
    renderList({ rows: [ROW], count: 1000, capped: true });
    expect((await screen.findByText(/1,000\+ receipts in total/)).textContent).toContain(
      '1 loaded',
    );
  });

  it('tells no traffic at all from no match', async () => {
    const empty = renderList({ rows: [], count: 0 });
    expect(await screen.findByText('No traffic yet')).toBeTruthy();
    empty.unmount();
    renderList({ rows: [], count: 0, total: 12, route: '/receipts?gateway=nope' });
    expect(await screen.findByText('No receipts match')).toBeTruthy();
  });

  it('shows a range that ends before it starts as an error and will not apply it', async () => {
    const { calls } = renderList({ rows: [ROW], count: 1 });
    await screen.findByRole('row', { name: /edge-a/ });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-01-05T10:00' } });
    fireEvent.change(screen.getByLabelText('Until'), { target: { value: '2026-01-04T10:00' } });
    expect(screen.getByRole('alert').textContent).toContain('must not be before');
    const apply = screen.getByRole('button', { name: 'Apply filters' }) as HTMLButtonElement;
    expect(apply.disabled).toBe(true);
    expect(calls.some((c) => c.includes('until='))).toBe(false);
  });

  it('applies a quick range, the substring search and the sort to the API query', async () => {
    const { calls } = renderList({ rows: [ROW], count: 1 });
    await screen.findByRole('row', { name: /edge-a/ });
    fireEvent.change(screen.getByLabelText('Tool name contains'), { target: { value: 'pull' } });
    fireEvent.click(screen.getByRole('button', { name: 'Last hour' }));
    await screen.findByRole('row', { name: /edge-a/ });
    fireEvent.change(screen.getByLabelText('Sort'), { target: { value: 'oldest' } });
    await screen.findByText(/oldest first/);
    const last = calls.filter((c) => c.startsWith(`GET ${API}/receipts?`)).at(-1) ?? '';
    expect(last).toContain('toolContains=pull');
    expect(last).toContain('since=');
    expect(last).toContain('order=oldest');
  });

  it('suggests gateways from the API', async () => {
    renderList({ rows: [ROW], count: 1 });
    const list = await screen.findByTestId('suggestions-gateway');
    await within(list).findByText('', { selector: 'option[value="edge-b"]' });
  });

  it('reads a capability contract from the URL (a Fidelity cell’s link) into the API query', async () => {
    const { calls } = renderList({
      rows: [ROW],
      count: 1,
      route: '/receipts?contract=wardwright.web_search.v1&surface=anthropic-messages',
    });
    await screen.findByRole('row', { name: /edge-a/ });
    const list = calls.find((c) => c.startsWith(`GET ${API}/receipts?`)) ?? '';
    expect(list).toContain('contract=wardwright.web_search.v1');
    expect(list).toContain('surface=anthropic-messages');
    const count = calls.find((c) => c.startsWith(`GET ${API}/receipt-count?`)) ?? '';
    expect(count).toContain('contract=wardwright.web_search.v1');
    expect((screen.getByLabelText('Capability contract') as HTMLInputElement).value).toBe(
      'wardwright.web_search.v1',
    );
  });

  it('refuses to apply a contract that is not a contract id, saying what one looks like', async () => {
    const { calls } = renderList({ rows: [ROW], count: 1 });
    await screen.findByRole('row', { name: /edge-a/ });
    fireEvent.change(screen.getByLabelText('Capability contract'), {
      target: { value: 'web search' },
    });
    expect(screen.getByRole('alert').textContent).toContain('wardwright.web_search.v1');
    const apply = screen.getByRole('button', { name: 'Apply filters' }) as HTMLButtonElement;
    expect(apply.disabled).toBe(true);
    expect(calls.some((c) => c.includes('contract='))).toBe(false);
  });

  it('drops a hand-edited contract the API would refuse', async () => {
    const { calls } = renderList({ rows: [ROW], count: 1, route: '/receipts?contract=nope' });
    await screen.findByRole('row', { name: /edge-a/ });
    expect(calls.some((c) => c.includes('contract='))).toBe(false);
  });
});
