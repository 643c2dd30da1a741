import { fireEvent, screen, within } from '@testing-library/react';
import type { Overview } from '@toolgate/contract';
import { describe, expect, it, vi } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { OverviewPage } from './overview-page.tsx';

// The canvas chart is drawn in Chromium (e2e/browser/overview.test.ts); here, its data.
vi.mock('./time-series-chart.tsx', () => ({
  default: (props: { series: Array<{ label: string }> }) => (
    <div data-testid="chart">{props.series.map((s) => s.label).join(',')}</div>
  ),
}));

const OVERVIEW = '/apis/toolgate.dev/v1/receipts/overview';
const FROM = '2026-03-01T10:00:00.000Z';
const TO = '2026-03-01T11:00:00.000Z';

function overview(overrides: Partial<Overview> = {}): Overview {
  return {
    from: FROM,
    to: TO,
    bucketSeconds: 1800,
    totals: { requests: 12, ok: 7, blocked: 3, withheld: 1, error: 1 },
    requests: [
      { start: FROM, ok: 4, blocked: 2, withheld: 1, error: 0 },
      { start: '2026-03-01T10:30:00.000Z', ok: 3, blocked: 1, withheld: 0, error: 1 },
    ],
    latency: [
      {
        start: FROM,
        mediation: { p50: 0.4, p95: 1.2, p99: 2 },
        upstream: { p50: 400, p95: 900, p99: 1200 },
      },
    ],
    byRule: [
      { rule: 'guardrails/no-deletes', blocked: 2, withheld: 0 },
      { rule: 'hidden', blocked: 1, withheld: 0 },
      { rule: 'guardrails/ask-first', blocked: 0, withheld: 1 },
    ],
    topTools: [
      { tool: 'read_file', calls: 9 },
      { tool: 'delete_branch', calls: 2 },
    ],
    gateways: [
      {
        name: 'edge-a',
        state: 'in_sync',
        appliedBundleETag: `sha256:${'a'.repeat(64)}`,
        desiredBundleETag: `sha256:${'a'.repeat(64)}`,
        lastSyncTime: new Date().toISOString(),
        message: null,
      },
      {
        name: 'edge-b',
        state: 'nack',
        appliedBundleETag: `sha256:${'b'.repeat(64)}`,
        desiredBundleETag: `sha256:${'a'.repeat(64)}`,
        lastSyncTime: new Date().toISOString(),
        message: 'rules[0].match.name: must not be empty',
      },
    ],
    pendingApprovals: 4,
    ...overrides,
  };
}

describe('OverviewPage', () => {
  it('shows totals, charts, rules, tools and gateway sync, each linking to its receipts', async () => {
    const { calls } = renderWithApi(<OverviewPage />, {
      route: '/?range=hour',
      responses: { [`GET ${OVERVIEW}`]: { body: overview() } },
    });

    const totals = await screen.findByRole('list', { name: 'Totals' });
    expect(within(totals).getByRole('link', { name: '12' }).getAttribute('href')).toContain(
      `since=${FROM}`,
    );
    expect(within(totals).getByRole('link', { name: '3' }).getAttribute('href')).toContain(
      'outcome=blocked',
    );
    expect(within(totals).getByRole('link', { name: '4' }).getAttribute('href')).toBe(
      '/approvals?state=pending',
    );

    const rules = screen.getByRole('list', { name: 'Blocked and withheld calls by rule' });
    const noDeletes = within(rules).getByRole('link', { name: /guardrails\/no-deletes/ });
    expect(noDeletes.getAttribute('href')).toContain('rule=guardrails%2Fno-deletes');
    expect(noDeletes.textContent).toContain('2 blocked');
    expect(within(rules).getByRole('link', { name: /ask-first/ }).textContent).toContain(
      '1 withheld',
    );

    const tools = screen.getByRole('list', { name: 'Top tools called' });
    expect(
      within(tools)
        .getByRole('link', { name: /read_file/ })
        .getAttribute('href'),
    ).toContain('tool=read_file');

    const nack = screen.getByRole('row', { name: /edge-b/ });
    expect(within(nack).getByText('NACK')).toBeTruthy();
    expect(within(nack).getByText('rules[0].match.name: must not be empty')).toBeTruthy();
    expect(within(screen.getByRole('row', { name: /edge-a/ })).getByText('in sync')).toBeTruthy();

    expect((await screen.findAllByTestId('chart')).map((c) => c.textContent)).toEqual([
      'ok,blocked,withheld,error',
      'p50,p95,p99',
      'p50,p95,p99',
    ]);
    // The last hour, in one-minute buckets.
    const asked = calls.find((c) => c.includes('/receipts/overview')) as string;
    expect(new URL(asked, 'http://x').searchParams.get('bucket')).toBe('60');
  });

  it('says so when the range has no traffic, and still shows the gateways', async () => {
    renderWithApi(<OverviewPage />, {
      responses: {
        [`GET ${OVERVIEW}`]: {
          body: overview({
            totals: { requests: 0, ok: 0, blocked: 0, withheld: 0, error: 0 },
            requests: [],
            latency: [],
            byRule: [],
            topTools: [],
          }),
        },
      },
    });
    expect(await screen.findByText('No traffic in this range')).toBeTruthy();
    expect(screen.getByRole('row', { name: /edge-a/ })).toBeTruthy();
    expect(screen.queryByTestId('chart')).toBeNull();
  });

  it('shows an error with a retry', async () => {
    renderWithApi(<OverviewPage />, {
      responses: {
        [`GET ${OVERVIEW}`]: {
          status: 500,
          body: { kind: 'Status', code: 500, reason: 'InternalError', message: 'database down' },
        },
      },
    });
    expect(await screen.findByText('The overview failed to load')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('checks a custom range before asking the API', async () => {
    const { calls } = renderWithApi(<OverviewPage />, {
      responses: { [`GET ${OVERVIEW}`]: { body: overview() } },
    });
    await screen.findByRole('list', { name: 'Totals' });
    fireEvent.click(screen.getByRole('button', { name: 'Custom' }));
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-02T10:00' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-01T10:00' } });
    const before = calls.length;
    fireEvent.click(screen.getByRole('button', { name: 'Apply range' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The end must be after the start.');
    expect(calls.length).toBe(before);
  });
});
