import { createMockMcp } from '@toolgate/mock-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpDemoError, runMcpDemo } from './demo-mcp.ts';

/**
 * The demo's MCP agent refuses to pass off an ungoverned server as the demo: pointed at the demo
 * MCP server itself (no gateway, no policy), it finds delete_repo listed and says so. (Through the
 * gateway it runs in e2e/stack and `pnpm demo`.)
 */
let mcp: Awaited<ReturnType<typeof createMockMcp>>;
beforeAll(async () => {
  mcp = await createMockMcp({ path: '/mcp/demo', logLevel: 'silent' });
});
afterAll(async () => {
  await mcp.close();
});

describe('runMcpDemo', () => {
  it('fails loudly when the hidden tool is listed, and leaves no session behind', async () => {
    const run = runMcpDemo({ gatewayUrl: mcp.origin, agentToken: 'not-checked-here' });
    await expect(run).rejects.toBeInstanceOf(McpDemoError);
    await expect(run).rejects.toThrow(/delete_repo/);
    expect(mcp.calls.total).toBe(0);
    expect(mcp.sessions()).toBe(0);
  });
});
