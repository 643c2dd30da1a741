import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { GatewaysPage } from './gateways-page.tsx';

const LIST = '/apis/toolgate.dev/v1/gateways';
const gateway = (name: string, status?: unknown) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'Gateway',
  metadata: { ...META, name, labels: { env: 'prod' } },
  spec: { identity: `${name}-id` },
  ...(status ? { status } : {}),
});
const list = (items: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'GatewayList',
  metadata: { resourceVersion: '9' },
  items,
});

describe('GatewaysPage', () => {
  it('shows a NACK with its error and flags a gateway that never synced as stale', async () => {
    renderWithApi(<GatewaysPage />, {
      responses: {
        [`GET ${LIST}`]: {
          body: list([
            gateway('edge-a', {
              lastSyncTime: new Date().toISOString(),
              spoolDepth: 4,
              conditions: [
                {
                  type: 'Synced',
                  status: 'False',
                  reason: 'BundleRejected',
                  message: 'rules[0].match.name: must not be empty',
                  lastTransitionTime: new Date().toISOString(),
                },
              ],
            }),
            gateway('edge-b'),
          ]),
        },
      },
    });
    const nacked = await screen.findByRole('row', { name: /edge-a/ });
    expect(within(nacked).getByText('NACK')).toBeTruthy();
    expect(within(nacked).getByText('rules[0].match.name: must not be empty')).toBeTruthy();
    expect(within(nacked).queryByText('stale')).toBeNull();
    const never = screen.getByRole('row', { name: /edge-b/ });
    expect(within(never).getByText('never synced')).toBeTruthy();
    expect(within(never).getByText('stale')).toBeTruthy();
  });

  it('has an empty state and an error state', async () => {
    const { unmount } = renderWithApi(<GatewaysPage />, {
      responses: { [`GET ${LIST}`]: { body: list([]) } },
    });
    expect(await screen.findByText('No gateways registered')).toBeTruthy();
    unmount();
    renderWithApi(<GatewaysPage />, {
      responses: {
        [`GET ${LIST}`]: {
          status: 503,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            code: 503,
            reason: 'ServiceUnavailable',
            message: 'database down',
          },
        },
      },
    });
    expect((await screen.findByRole('alert')).textContent).toContain('database down');
  });

  it('shows the quarantined receipts of each gateway, and says when there are none', async () => {
    const hash = `sha256:${'a'.repeat(64)}`;
    const { unmount } = renderWithApi(<GatewaysPage />, {
      responses: {
        [`GET ${LIST}`]: {
          body: list([
            gateway('edge-q', {
              conditions: [],
              receiptQuarantine: {
                count: 14,
                lastReason: 'Invalid',
                lastTime: '2026-05-01T10:00:02.000Z',
                recent: [
                  {
                    id: 'rcpt-big',
                    hash,
                    reason: 'RequestEntityTooLarge',
                    message: 'request body is too large',
                    bytes: 9437312,
                    quarantinedAt: '2026-05-01T10:00:01.000Z',
                  },
                ],
              },
            }),
            gateway('edge-clean', { conditions: [], receiptQuarantine: { count: 0, recent: [] } }),
          ]),
        },
      },
    });
    const row = await screen.findByRole('row', { name: /edge-q/ });
    expect(within(row).getByText('14')).toBeTruthy();
    const section = screen.getByRole('region', { name: 'Quarantined receipts' });
    const table = within(section).getByRole('table', { name: /edge-q: 14 quarantined receipts/ });
    const entry = within(table).getByRole('row', { name: /rcpt-big/ });
    expect(within(entry).getByText('RequestEntityTooLarge')).toBeTruthy();
    expect(within(entry).getByText('request body is too large')).toBeTruthy();
    expect(within(section).queryByText(/edge-clean/)).toBeNull();
    unmount();

    renderWithApi(<GatewaysPage />, {
      responses: { [`GET ${LIST}`]: { body: list([gateway('edge-clean')]) } },
    });
    expect(await screen.findByText('No quarantined receipts')).toBeTruthy();
  });
});
