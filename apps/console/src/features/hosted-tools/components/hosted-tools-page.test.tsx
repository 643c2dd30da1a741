import { screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { HostedToolPage } from './hosted-tool-page.tsx';
import { HostedToolsPage } from './hosted-tools-page.tsx';

const LIST = '/apis/toolgate.dev/v1/hostedtools';
const list = (items: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'HostedToolList',
  metadata: { resourceVersion: '9' },
  items,
});
const SEARCH = {
  apiVersion: 'toolgate.dev/v1',
  kind: 'HostedTool',
  metadata: { ...META, name: 'approved-web-search', labels: { team: 'platform' } },
  spec: {
    tool: {
      name: 'approved_web_search',
      description: 'Search the web through the approved backend.',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
    endpoint: {
      url: 'https://search.internal.example:8443/v1/search?team=7',
      headers: [
        { name: 'Authorization', secretRef: { env: 'SEARCH_API_TOKEN' } },
        { name: 'X-Team', value: 'platform' },
      ],
      timeout: '5s',
      retries: 1,
      maxResponseBytes: 131072,
    },
    redact: ['debug.token', 'results[*].tracking'],
    description: 'Web search for agents',
  },
  status: { conditions: [] },
};
const FAILURE = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code: 503,
  reason: 'ServiceUnavailable',
  message: 'database down',
};

describe('HostedToolsPage', () => {
  it('lists tools with their tool name, endpoint host (no path) and timeout', async () => {
    renderWithApi(<HostedToolsPage />, {
      responses: {
        [`GET ${LIST}`]: {
          body: list([
            SEARCH,
            {
              ...SEARCH,
              metadata: { ...META, name: 'weather' },
              spec: {
                tool: { name: 'weather_now', description: 'Weather.', parameters: {} },
                endpoint: { url: 'http://127.0.0.1:4000/weather' },
              },
            },
          ]),
        },
      },
    });
    const search = await screen.findByRole('row', { name: /approved-web-search/ });
    expect(
      within(search).getByRole('link', { name: 'approved-web-search' }).getAttribute('href'),
    ).toBe('/hosted-tools/approved-web-search');
    expect(within(search).getByText('approved_web_search')).toBeTruthy();
    expect(within(search).getByText('search.internal.example:8443')).toBeTruthy();
    expect(search.textContent).not.toContain('team=7');
    expect(within(search).getByText('5s')).toBeTruthy();
    const weather = screen.getByRole('row', { name: /weather/ });
    expect(within(weather).getByText('127.0.0.1:4000')).toBeTruthy();
    // Defaults shown for what the API sent without them.
    expect(within(weather).getByText('10s')).toBeTruthy();
  });

  it('has an empty state and an error state', async () => {
    const { unmount } = renderWithApi(<HostedToolsPage />, {
      responses: { [`GET ${LIST}`]: { body: list([]) } },
    });
    expect(await screen.findByText('No hosted tools')).toBeTruthy();
    unmount();
    renderWithApi(<HostedToolsPage />, {
      responses: { [`GET ${LIST}`]: { status: 503, body: FAILURE } },
    });
    expect((await screen.findByRole('alert')).textContent).toContain('database down');
  });
});

describe('HostedToolPage', () => {
  function renderDetail(response: { status?: number; body: unknown }) {
    return renderWithApi(
      <Routes>
        <Route path="/hosted-tools/:name" element={<HostedToolPage />} />
      </Routes>,
      {
        route: '/hosted-tools/approved-web-search',
        responses: { [`GET ${LIST}/approved-web-search`]: response },
      },
    );
  }

  it('shows the declaration, the endpoint with secrets by reference, limits and redaction', async () => {
    renderDetail({ body: SEARCH });
    expect(
      await screen.findByRole('heading', { name: 'Hosted tool: approved-web-search' }),
    ).toBeTruthy();
    const model = screen.getByRole('region', { name: 'What the model sees' });
    expect(model.textContent).toContain('Search the web through the approved backend.');
    expect(JSON.parse(model.querySelector('pre')?.textContent ?? '')).toEqual(
      SEARCH.spec.tool.parameters,
    );
    const endpoint = screen.getByRole('region', { name: 'Endpoint' });
    expect(endpoint.textContent).toContain(
      'POST https://search.internal.example:8443/v1/search?team=7',
    );
    expect(endpoint.textContent).toContain("Authorization: from the gateway's $SEARCH_API_TOKEN");
    expect(endpoint.textContent).toContain('X-Team: platform');
    expect(endpoint.textContent).toContain('5s per attempt');
    expect(endpoint.textContent).toContain('1, after a connection error or a 5xx');
    expect(endpoint.textContent).toContain('128 KiB');
    const redacted = screen.getByRole('region', { name: 'Redacted paths (2)' });
    expect(
      within(redacted)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['debug.token', 'results[*].tracking']);
  });

  it('says when a tool does not exist', async () => {
    renderDetail({
      status: 404,
      body: { ...FAILURE, code: 404, reason: 'NotFound', message: 'HostedTool "x" not found' },
    });
    expect(await screen.findByRole('heading', { name: 'Not found' })).toBeTruthy();
    expect(screen.getByRole('link', { name: '← Back to hosted tools' }).getAttribute('href')).toBe(
      '/hosted-tools',
    );
  });
});
