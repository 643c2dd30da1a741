import { screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { GatewayPage } from './gateway-page.tsx';
import { GatewaysPage } from './gateways-page.tsx';

const P = '/apis/toolgate.dev/v1';
const LATEST = `sha256:${'b'.repeat(64)}`;
const OLDER = `sha256:${'a'.repeat(64)}`;
const now = () => new Date().toISOString();
const synced = (ok: boolean, message = '') => ({
  type: 'Synced',
  status: ok ? 'True' : 'False',
  reason: ok ? 'BundleApplied' : 'BundleRejected',
  message,
  lastTransitionTime: now(),
});
const gateway = (name: string, status?: unknown) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'Gateway',
  metadata: { ...META, name },
  spec: { identity: `${name}-id` },
  ...(status ? { status } : {}),
});
const syncEntry = (name: string, state: string, applied: string | null, message = null) => ({
  name,
  state,
  appliedBundleETag: applied,
  desiredBundleETag: LATEST,
  lastSyncTime: applied ? now() : null,
  message,
});

afterEach(() => vi.unstubAllGlobals());

describe('the fleet', () => {
  it('sums the fleet up, highlights NACK rows and shows desired vs applied bundles', async () => {
    renderWithApi(<GatewaysPage />, {
      responses: {
        [`GET ${P}/gateways`]: {
          body: {
            apiVersion: 'toolgate.dev/v1',
            kind: 'GatewayList',
            metadata: { resourceVersion: '9' },
            items: [
              gateway('edge-ok', {
                appliedBundleETag: LATEST,
                lastSyncTime: now(),
                conditions: [synced(true)],
              }),
              gateway('edge-old', {
                appliedBundleETag: OLDER,
                lastSyncTime: now(),
                conditions: [synced(true)],
              }),
              gateway('edge-nack', {
                appliedBundleETag: OLDER,
                lastSyncTime: now(),
                conditions: [synced(false, 'bad rule')],
              }),
            ],
          },
        },
        [`GET ${P}/gateway-sync`]: {
          body: {
            items: [
              syncEntry('edge-ok', 'in_sync', LATEST),
              syncEntry('edge-old', 'behind', OLDER),
              syncEntry('edge-nack', 'nack', OLDER),
            ],
          },
        },
      },
    });
    const summary = await screen.findByRole('list', { name: 'Fleet summary' });
    const tiles = within(summary)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(tiles[0]).toMatch(/^in sync1/);
    expect(tiles[1]).toMatch(/^behind1/);
    expect(tiles[2]).toMatch(/^NACK1/);
    expect(tiles[3]).toMatch(/^stale0/);

    const nack = screen.getByRole('row', { name: /edge-nack/ });
    expect(nack.className).toBe('row-nack');
    expect(within(nack).getByText('bad rule')).toBeTruthy();
    const behind = screen.getByRole('row', { name: /edge-old/ });
    expect(within(behind).getByText('behind')).toBeTruthy();
    expect(within(behind).getByText('latest bundle', { exact: false })).toBeTruthy();
    expect(within(behind).getByText('aaaaaaaaaaaa')).toBeTruthy();
    expect(within(behind).getByText('bbbbbbbbbbbb')).toBeTruthy();
    const ok = screen.getByRole('row', { name: /edge-ok/ });
    expect(within(ok).getByText('in sync')).toBeTruthy();
    expect(within(ok).getByRole('link', { name: 'edge-ok' }).getAttribute('href')).toBe(
      '/gateways/edge-ok',
    );
  });
});

describe('GatewayPage', () => {
  it('shows state, last errors, the folded history and a link to its receipts', async () => {
    const t = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    renderWithApi(
      <Routes>
        <Route path="/gateways/:name" element={<GatewayPage />} />
      </Routes>,
      {
        route: '/gateways/edge-h',
        responses: {
          [`GET ${P}/gateways/edge-h`]: {
            body: gateway('edge-h', {
              appliedBundleETag: OLDER,
              lastSyncTime: now(),
              conditions: [synced(false, 'rules[0]: bad')],
              spoolDepth: 3,
            }),
          },
          [`GET ${P}/gateways/edge-h/sync-history`]: {
            body: {
              sync: syncEntry('edge-h', 'nack', OLDER, 'rules[0]: bad' as never),
              complete: false,
              items: [
                {
                  since: t(10),
                  until: t(1),
                  reports: 19,
                  sync: 'nack',
                  appliedBundleETag: OLDER,
                  reason: 'BundleRejected',
                  message: 'rules[0]: bad',
                  spoolFull: false,
                },
                {
                  since: t(60),
                  until: t(11),
                  reports: 98,
                  sync: 'synced',
                  appliedBundleETag: OLDER,
                  reason: null,
                  message: null,
                  spoolFull: false,
                },
              ],
            },
          },
        },
      },
    );
    expect(await screen.findByRole('heading', { name: 'Gateway: edge-h' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Receipts of edge-h' }).getAttribute('href')).toBe(
      '/receipts?gateway=edge-h',
    );
    const errors = screen.getByRole('region', { name: 'Last errors' });
    expect(within(errors).getByText('rules[0]: bad')).toBeTruthy();
    const history = screen.getByRole('region', { name: 'Status history' });
    const rows = within(history).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[2]?.textContent)).toEqual([
      '×19',
      '×98',
    ]);
    expect(rows[0]?.className).toBe('row-nack');
    expect(within(history).getByText(/Older reports are not shown/)).toBeTruthy();
  });
});
