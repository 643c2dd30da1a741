import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { PreviewPanel } from './preview-panel.tsx';

const GATEWAYS = 'GET /apis/toolgate.dev/v1/gateways';
const RECEIPTS = 'GET /apis/toolgate.dev/v1/receipts';
const PREVIEW = 'POST /apis/toolgate.dev/v1/mediationpolicypreviews';
const receipt = (id: string, tools: string[]) => ({
  id,
  gateway: 'edge-prod',
  seq: '1',
  receivedAt: '2026-01-01T00:00:00Z',
  surface: 'openai-chat',
  model: 'gpt-4o-mini',
  stream: false,
  status: 200,
  outcome: 'ok',
  identity: { human: null, service: null, session: null, binding: 'none' },
  tools,
  calls: [],
  callCount: 0,
  rules: [],
  policies: [],
  hash: `sha256:${'c'.repeat(64)}`,
});
const EFFECT = {
  surface: 'openai-chat',
  before: [],
  after: [],
  providerRequest: {},
  tools: [],
  gateway: 'edge-prod',
  draftSelected: false,
  policies: [{ name: 'prod-hide-deletes', generation: 3, draft: false }],
};

describe('PreviewPanel', () => {
  it('runs on a gateway with a receipt picked from a searchable list, no id typed', async () => {
    const bodies: unknown[] = [];
    const { calls } = renderWithApi(<PreviewPanel spec={{ rules: [] }} policyName="repo-guard" />, {
      responses: {
        [GATEWAYS]: {
          body: {
            items: [{ metadata: { name: 'edge-prod', labels: { env: 'prod' } } }],
            metadata: { resourceVersion: '1' },
          },
        },
        [RECEIPTS]: ({ url }) => ({
          body: {
            items: url.searchParams.get('toolContains')
              ? [receipt('r-merge', ['merge'])]
              : [receipt('r-1', ['delete_branch', 'search']), receipt('r-merge', ['merge'])],
            metadata: {},
          },
        }),
        [PREVIEW]: ({ body }) => {
          bodies.push(body);
          return { body: EFFECT };
        },
      },
    });
    await screen.findByRole('option', { name: 'edge-prod (env=prod)' });
    fireEvent.change(screen.getByLabelText('Run on'), { target: { value: 'edge-prod' } });
    fireEvent.click(screen.getByLabelText('a recorded receipt'));
    fireEvent.click(screen.getByRole('button', { name: 'Run preview' }));
    expect((await screen.findByRole('alert')).textContent).toBe('pick a receipt to replay');

    fireEvent.change(screen.getByLabelText('Find receipts by tool name'), {
      target: { value: 'mer' },
    });
    await waitFor(() => expect(calls.some((c) => c.includes('toolContains=mer'))).toBe(true));
    await waitFor(() =>
      expect(screen.getAllByRole('radio', { name: /edge-prod/ })).toHaveLength(1),
    );
    fireEvent.click(screen.getByRole('radio', { name: /merge/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Run preview' }));
    await screen.findByText(/does not select/);
    expect(bodies[0]).toEqual({
      spec: { rules: [] },
      receiptId: 'r-merge',
      gateway: 'edge-prod',
      policyName: 'repo-guard',
    });
    expect(screen.getByText('(generation 3)')).toBeTruthy();
  });
});
