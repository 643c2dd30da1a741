import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { PoliciesPage } from './policies-page.tsx';

const LIST = '/apis/toolgate.dev/v1/mediationpolicies';
const policies = {
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicyList',
  metadata: { resourceVersion: '3' },
  items: [
    {
      apiVersion: 'toolgate.dev/v1',
      kind: 'MediationPolicy',
      metadata: { ...META, name: 'guardrails', generation: 4, labels: { team: 'platform' } },
      spec: {
        selector: {},
        priority: 10,
        mode: 'observe',
        unknownIdentities: 'unverified',
        rules: [],
      },
      status: { conditions: [], revisionHash: `sha256:${'a'.repeat(64)}` },
    },
  ],
};

describe('PoliciesPage', () => {
  it('lists policies with labels, mode and generation; operators get "New policy"', async () => {
    renderWithApi(<PoliciesPage />, {
      roles: ['operator'],
      responses: { [`GET ${LIST}`]: { body: policies } },
    });
    expect(await screen.findByRole('link', { name: 'guardrails' })).toBeTruthy();
    expect(screen.getByText('team=platform')).toBeTruthy();
    expect(screen.getByText('observe')).toBeTruthy();
    expect(screen.getByRole('cell', { name: '4' })).toBeTruthy();
    expect(await screen.findByRole('link', { name: 'New policy' })).toBeTruthy();
  });

  it('summarises the rules by action, call-time actions included', async () => {
    const rules = [
      { id: 'h', action: 'hide', match: { name: 'delete_branch' } },
      { id: 'd', action: 'deny', match: { name: 'create_pull_request' }, when: 'args.x' },
      { id: 'd2', action: 'deny', match: { name: 'merge' }, message: 'No merges.' },
      {
        id: 'a',
        action: 'require_approval',
        match: { name: 'send_email' },
        approval: { ttl: '1h' },
      },
      {
        id: 'r',
        action: 'rate_limit',
        match: { name: 'web_search' },
        limit: { calls: 10, per: '1m', by: 'identity' },
      },
    ];
    const item = policies.items[0] as (typeof policies.items)[0];
    renderWithApi(<PoliciesPage />, {
      roles: ['auditor'],
      responses: {
        [`GET ${LIST}`]: {
          body: { ...policies, items: [{ ...item, spec: { ...item.spec, rules } }] },
        },
      },
    });
    await screen.findByRole('link', { name: 'guardrails' });
    const cell = screen.getByRole('cell', { name: /^5 / });
    expect(
      [...cell.querySelectorAll('.pill')].map((pill) => [pill.textContent, pill.className]),
    ).toEqual([
      ['hide', 'pill pill-info'],
      ['deny ×2 (when)', 'pill pill-warn'],
      ['require_approval', 'pill pill-warn'],
      ['rate_limit', 'pill pill-warn'],
    ]);
    expect(cell.querySelector('.pill-warn')?.getAttribute('title')).toBe(
      '2 deny rules, 1 with a when: condition (call-time: judged per tool call)',
    );
  });

  it('shows an auditor no write control', async () => {
    const { calls } = renderWithApi(<PoliciesPage />, {
      roles: ['auditor'],
      responses: { [`GET ${LIST}`]: { body: policies } },
    });
    expect(await screen.findByRole('link', { name: 'guardrails' })).toBeTruthy();
    await screen.findByText('observe');
    expect(calls).toContain('GET /apis/toolgate.dev/v1/whoami');
    expect(screen.queryByRole('link', { name: 'New policy' })).toBeNull();
  });

  it('shows an empty state', async () => {
    renderWithApi(<PoliciesPage />, {
      roles: ['auditor'],
      responses: { [`GET ${LIST}`]: { body: { ...policies, items: [] } } },
    });
    expect(await screen.findByText('No policies yet')).toBeTruthy();
    expect(screen.getByText('An operator can create one.')).toBeTruthy();
  });
});
