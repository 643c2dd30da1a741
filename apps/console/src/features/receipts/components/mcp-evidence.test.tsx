import { render, screen } from '@testing-library/react';
import type { Receipt } from '@toolgate/core';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { McpEvidenceSection } from './mcp-evidence.tsx';

const hash = (c: string) => `sha256:${c.repeat(64)}`;

describe('McpEvidenceSection', () => {
  it('shows server, method, session, error and drifted tools', () => {
    const receipt = {
      mcp: {
        server: 'github',
        method: 'tools/list',
        session: 'sess-42',
        error: { code: -32602, message: 'Unknown tool' },
        drifted: [{ tool: 'create_issue', pinned: hash('a'), seen: hash('b'), action: 'blocked' }],
      },
    } as unknown as Receipt;
    render(
      <MemoryRouter>
        <McpEvidenceSection receipt={receipt} />
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: 'github' }).getAttribute('href')).toBe(
      '/mcp-servers/github',
    );
    expect(screen.getByText('tools/list')).toBeTruthy();
    expect(screen.getByText('sess-42')).toBeTruthy();
    expect(screen.getByText('JSON-RPC -32602')).toBeTruthy();
    expect(screen.getByText('Unknown tool')).toBeTruthy();
    expect(screen.getByText('create_issue')).toBeTruthy();
    expect(screen.getByText('blocked')).toBeTruthy();
  });

  it('renders nothing for a receipt without an mcp block', () => {
    const { container } = render(<McpEvidenceSection receipt={{} as Receipt} />);
    expect(container.textContent).toBe('');
  });
});
