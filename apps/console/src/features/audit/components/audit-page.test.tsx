import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AuditEntry } from '@toolgate/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { foldAuditEntries } from './audit-fold.ts';
import { AuditPage } from './audit-page.tsx';
import { auditRangeQuery } from './audit-range.ts';

const AUDIT = '/apis/toolgate.dev/v1/auditlog';
let nextId = 100;
const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: String(nextId--),
  at: new Date(Date.now() - nextId * 1000).toISOString(),
  actor: 'edge-a-identity',
  verb: 'update-status',
  kind: 'Gateway',
  name: 'edge-a',
  beforeHash: `sha256:${'1'.repeat(64)}`,
  afterHash: `sha256:${'2'.repeat(64)}`,
  details: {},
  ...over,
});

afterEach(() => vi.unstubAllGlobals());

describe('foldAuditEntries', () => {
  it('folds consecutive status reports and no-ops of one object, and nothing else', () => {
    const rows = foldAuditEntries([
      entry({}),
      entry({}),
      entry({}),
      entry({ verb: 'update', kind: 'MediationPolicy', name: 'p', actor: 'admin' }),
      entry({}),
      entry({ name: 'edge-b' }),
      entry({
        verb: 'issue-token',
        kind: 'Identity',
        name: 'x',
        beforeHash: null,
        afterHash: null,
      }),
      entry({
        verb: 'issue-token',
        kind: 'Identity',
        name: 'x',
        beforeHash: null,
        afterHash: null,
      }),
      entry({ verb: 'update', kind: 'Identity', name: 'y', beforeHash: 'h', afterHash: 'h' }),
      entry({ verb: 'update', kind: 'Identity', name: 'y', beforeHash: 'h', afterHash: 'h' }),
    ]);
    expect(rows.map((r) => [r.entry.name, r.entry.verb, r.count])).toEqual([
      ['edge-a', 'update-status', 3],
      ['p', 'update', 1],
      ['edge-a', 'update-status', 1],
      ['edge-b', 'update-status', 1],
      ['x', 'issue-token', 1],
      ['x', 'issue-token', 1],
      ['y', 'update', 2],
    ]);
  });
});

describe('auditRangeQuery', () => {
  it('turns a preset into since (cut to the minute) and drops a reversed range', () => {
    const now = Date.parse('2026-03-01T12:34:56Z');
    expect(auditRangeQuery({ range: 'hour' }, now)).toEqual({ since: '2026-03-01T11:34:00.000Z' });
    expect(
      auditRangeQuery(
        { range: 'custom', since: '2026-03-02T00:00:00Z', until: '2026-03-01T00:00:00Z' },
        now,
      ),
    ).toEqual({});
    expect(auditRangeQuery({ range: 'custom', since: '2026-03-01T00:00:00Z' }, now)).toEqual({
      since: '2026-03-01T00:00:00.000Z',
    });
  });
});

describe('AuditPage', () => {
  it('shows folded rows as ×N and links a policy change to its diff', async () => {
    const items = [
      entry({}),
      entry({}),
      entry({
        verb: 'update',
        kind: 'MediationPolicy',
        name: 'hide-destructive',
        actor: 'admin',
        details: { generation: 3 },
      }),
    ];
    renderWithApi(<AuditPage />, {
      route: '/audit',
      responses: { [`GET ${AUDIT}`]: { body: { items, metadata: {} } } },
    });
    const status = await screen.findByRole('row', { name: /Gateway\/edge-a/ });
    expect(within(status).getByText('×2')).toBeTruthy();
    expect(within(status).getByRole('link', { name: 'Gateway/edge-a' }).getAttribute('href')).toBe(
      '/gateways/edge-a',
    );
    const policy = screen.getByRole('row', { name: /hide-destructive/ });
    expect(
      within(policy)
        .getByRole('link', { name: 'MediationPolicy/hide-destructive' })
        .getAttribute('href'),
    ).toBe('/policies/hide-destructive?tab=diff&from=2&to=3');
  });

  it('asks the API for the chosen range and refuses a custom range that ends first', async () => {
    const { calls } = renderWithApi(<AuditPage />, {
      route: '/audit',
      responses: { [`GET ${AUDIT}`]: { body: { items: [], metadata: {} } } },
    });
    await screen.findByText('No audit entries match');
    fireEvent.click(screen.getByRole('button', { name: 'Last day' }));
    await waitFor(() => expect(calls.some((c) => c.includes('since='))).toBe(true));
    expect(screen.getByRole('button', { name: 'Last day' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    const form = screen.getByRole('form', { name: 'Audit time range' });
    fireEvent.change(within(form).getByLabelText('From'), {
      target: { value: '2026-03-02T10:00' },
    });
    fireEvent.change(within(form).getByLabelText(/Until/), {
      target: { value: '2026-03-01T10:00' },
    });
    expect(within(form).getByText('“Until” must be after “From”.')).toBeTruthy();
    expect(
      (within(form).getByRole('button', { name: 'Apply range' }) as HTMLButtonElement).disabled,
    ).toBe(true);
    fireEvent.change(within(form).getByLabelText(/Until/), {
      target: { value: '2026-03-03T10:00' },
    });
    fireEvent.click(within(form).getByRole('button', { name: 'Apply range' }));
    await waitFor(() => expect(calls.some((c) => c.includes('until='))).toBe(true));
  });
});
