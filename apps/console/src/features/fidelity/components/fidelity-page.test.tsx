import { fireEvent, screen, within } from '@testing-library/react';
import { SEED_CAPABILITY_CONTRACTS, SEED_PROVIDER_PROFILES } from '@toolgate/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { FidelityPage } from './fidelity-page.tsx';

const P = '/apis/toolgate.dev/v1';
const list = (kind: string, items: readonly unknown[]) => ({
  apiVersion: 'toolgate.dev/v1',
  kind,
  metadata: { resourceVersion: '1' },
  items,
});

afterEach(() => vi.unstubAllGlobals());

const SEEDED = {
  [`GET ${P}/capabilitycontracts`]: {
    body: list('CapabilityContractList', SEED_CAPABILITY_CONTRACTS),
  },
  [`GET ${P}/providerprofiles`]: { body: list('ProviderProfileList', SEED_PROVIDER_PROFILES) },
};

/** The page on the seeded contracts and profiles. */
function renderSeeded() {
  renderWithApi(<FidelityPage />, { route: '/fidelity', responses: SEEDED });
}

describe('FidelityPage', () => {
  it('shows a column per seeded provider surface, OpenAI Responses beside Chat Completions', async () => {
    renderSeeded();
    const row = await screen.findByRole('row', { name: /Web search/ });
    const headers = screen.getAllByRole('columnheader').map((th) => th.textContent);
    expect(headers).toEqual([
      'Capability contract',
      ...SEED_PROVIDER_PROFILES.map((p) => `${p.spec.displayName}${p.spec.surface}`),
    ]);
    expect(headers).toContain('OpenAI Responsesopenai-responses');
    const column = (surface: string) =>
      SEED_PROVIDER_PROFILES.findIndex((p) => p.spec.surface === surface);
    const cells = within(row)
      .getAllByRole('button')
      .map((b) => b.textContent);
    expect(cells[column('openai-responses')]).toContain('Web search on OpenAI Responses');
    expect(cells[column('openai-responses')]).toContain('Normalized');
    expect(cells[column('openai-chat')]).toContain('Provider-attested');
  });

  it('names contracts by title with the wire id kept, and every level by name and mark', async () => {
    renderSeeded();
    const row = await screen.findByRole('row', { name: /Web search/ });
    const header = within(row).getByRole('rowheader');
    expect(header.getAttribute('title')).toBe('wardwright.web_search.v1');
    expect(header.textContent).toContain('wardwright.web_search.v1');
    const legend = screen.getByRole('list', { name: 'Fidelity levels, strongest first' });
    const items = within(legend)
      .getAllByRole('listitem')
      .map((li) => li.textContent ?? '');
    expect(items.map((text) => text.split(':')[0]?.trim())).toEqual([
      '●● Pass-through pass_through',
      '●○ Normalized normalized',
      '◆ Emulated emulated',
      '△ Provider-attested provider_attested',
      '? Opaque opaque',
    ]);
  });

  it('shows a column per seeded profile, Gemini’s among them', async () => {
    renderSeeded();
    const table = await screen.findByRole('table');
    const columns = within(table)
      .getAllByRole('columnheader')
      .map((th) => th.textContent);
    expect(columns).toEqual([
      'Capability contract',
      ...SEED_PROVIDER_PROFILES.map((p) => `${p.spec.displayName}${p.spec.surface}`),
    ]);
    expect(columns).toContain('Google Geminigemini');
    const code = screen.getByRole('row', { name: /Code execution/ });
    expect(
      within(code).getByRole('button', { name: /Code execution on Google Gemini/ }).textContent,
    ).toContain('Normalized');
  });

  it('opens a cell’s proofs and gaps, and links to the receipts that used its capability', async () => {
    renderSeeded();
    const cell = await screen.findByRole('button', { name: /^Web search on Anthropic Messages/ });
    fireEvent.click(cell);
    expect(cell.getAttribute('aria-pressed')).toBe('true');
    await screen.findByRole('heading', { name: 'Proofs: what is observable' });
    screen.getByRole('heading', { name: /^Gaps \(\d+\)$/ });
    const link = screen.getByRole('link', {
      name: 'Receipts using this: Web search on Anthropic Messages',
    });
    expect(link.getAttribute('href')).toBe(
      '/receipts?contract=wardwright.web_search.v1&surface=anthropic-messages',
    );
  });
});
