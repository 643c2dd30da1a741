import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { McpServersPage } from './mcp-servers-page.tsx';

const LIST = '/apis/toolgate.dev/v1/mcpservers';
const hash = (c: string) => `sha256:${c.repeat(64)}`;
const list = (items: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'McpServerList',
  metadata: { resourceVersion: '9' },
  items,
});
const pin = (name: string, pinned: string, latest = pinned) => ({
  name,
  pinned,
  latest,
  firstSeenAt: '2026-05-01T10:00:00.000Z',
  firstSeenBy: 'gw',
  lastSeenAt: '2026-05-01T10:00:00.000Z',
});

describe('McpServersPage', () => {
  it('lists servers with URL, drift mode, tool count, open drifts and last observation', async () => {
    renderWithApi(<McpServersPage />, {
      responses: {
        [`GET ${LIST}`]: {
          body: list([
            {
              apiVersion: 'toolgate.dev/v1',
              kind: 'McpServer',
              metadata: { ...META, name: 'github' },
              spec: { url: 'https://mcp.example.com/mcp', drift: 'block' },
              status: {
                conditions: [],
                tools: [pin('create_issue', hash('a'), hash('b')), pin('search', hash('c'))],
                drifts: [
                  {
                    id: 'drift-1',
                    tool: 'create_issue',
                    from: hash('a'),
                    to: hash('b'),
                    detectedAt: '2026-05-01T10:00:00.000Z',
                    detectedBy: 'gw',
                    state: 'open',
                  },
                ],
                observedAt: new Date().toISOString(),
              },
            },
            {
              apiVersion: 'toolgate.dev/v1',
              kind: 'McpServer',
              metadata: { ...META, name: 'docs' },
              spec: { url: 'http://127.0.0.1:4000/mcp', drift: 'warn' },
              status: {},
            },
          ]),
        },
      },
    });
    const github = await screen.findByRole('row', { name: /github/ });
    expect(within(github).getByRole('link', { name: 'github' }).getAttribute('href')).toBe(
      '/mcp-servers/github',
    );
    expect(within(github).getByText('block')).toBeTruthy();
    expect(within(github).getByText('2')).toBeTruthy();
    expect(within(github).getByText('1 open')).toBeTruthy();
    const docs = screen.getByRole('row', { name: /docs/ });
    expect(within(docs).getByText('never')).toBeTruthy();
  });

  it('has an empty state and an error state', async () => {
    const { unmount } = renderWithApi(<McpServersPage />, {
      responses: { [`GET ${LIST}`]: { body: list([]) } },
    });
    expect(await screen.findByText('No MCP servers')).toBeTruthy();
    unmount();
    renderWithApi(<McpServersPage />, {
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
});
