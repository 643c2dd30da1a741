import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_MCP_SERVER } from './demo-seed.ts';

/** What one MCP step did, as the agent saw it through the gateway. */
export interface McpDemoStep {
  title: string;
  /** A result, a result with `isError` (the tool's, or the gateway's refusal), or an error. */
  outcome: 'result' | 'error result' | 'JSON-RPC error';
  /** What the agent got: the result's text, or the error's message. */
  detail: string;
}

export interface McpDemoRun {
  /** The tools the agent was offered (`tools/list` through the gateway). */
  listed: string[];
  steps: McpDemoStep[];
  /** Receipt ids the gateway named in `x-toolgate-receipt-id` response headers, if it does. */
  receiptIds: string[];
  /** The demo's own session id (`x-session-id`), which its receipts carry as a claim. */
  session: string;
}

/** Receipts one run leaves: the `tools/list` that hid a tool, and one per `tools/call` (5). */
export const MCP_DEMO_RECEIPTS = 6;

/** What the demo seed's policy must have done; anything else is a broken demo. */
export class McpDemoError extends Error {}

/**
 * A scripted MCP agent through the gateway's `/mcp/demo` with the official SDK client (only
 * the URL and the Authorization header differ from a direct connection): it lists the tools (the
 * seed hides `delete_repo`), searches issues, opens an issue outside `acme/` (withheld for
 * approval), calls the hidden tool anyway (refused), runs a task that streams progress, and
 * calls a tool that fails. Each issue title carries the run, so every run asks for a fresh
 * approval. Throws `McpDemoError` when the gateway did not do what the seed says.
 */
export async function runMcpDemo(options: {
  gatewayUrl: string;
  agentToken: string;
  session?: string;
}): Promise<McpDemoRun> {
  const session = options.session ?? `demo-mcp-${Date.now().toString(36)}`;
  const receiptIds: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const id = response.headers.get('x-toolgate-receipt-id');
    if (id) receiptIds.push(id);
    return response;
  };
  const transport = new StreamableHTTPClientTransport(
    new URL(`${options.gatewayUrl}/mcp/${DEMO_MCP_SERVER}`),
    {
      requestInit: {
        headers: { authorization: `Bearer ${options.agentToken}`, 'x-session-id': session },
      },
      fetch: recordingFetch,
    },
  );
  const client = new Client({ name: 'toolgate-demo-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    if (listed.includes('delete_repo')) {
      throw new McpDemoError(
        'the gateway listed delete_repo: the seed rule no-repo-deletion hides it',
      );
    }
    for (const tool of ['search_issues', 'create_issue', 'long_task', 'deploy_service']) {
      if (!listed.includes(tool)) {
        throw new McpDemoError(`the gateway did not list ${tool} (listed: ${listed.join(', ')})`);
      }
    }
    const steps: McpDemoStep[] = [];
    const call = async (
      title: string,
      name: string,
      args: Record<string, unknown>,
      expected: ReadonlyArray<McpDemoStep['outcome']>,
      onprogress?: () => void,
    ) => {
      const step = await callOnce(client, title, name, args, onprogress);
      if (!expected.includes(step.outcome)) {
        throw new McpDemoError(
          `${title}: expected ${expected.join(' or ')}, the agent got ${step.outcome}: ${step.detail}`,
        );
      }
      steps.push(step);
    };

    await call(
      'search issues in acme/app',
      'search_issues',
      { repo: 'acme/app', query: 'flaky test' },
      ['result'],
    );
    await call(
      'open an issue outside acme/ (needs approval)',
      'create_issue',
      { repo: 'octo/elsewhere', title: `Broken link in the docs (${session})` },
      // The demo server never fails create_issue: an error here is the gateway withholding it.
      ['error result', 'JSON-RPC error'],
    );
    await call('delete a repository (hidden tool)', 'delete_repo', { repo: 'acme/app' }, [
      'JSON-RPC error',
    ]);
    let progress = 0;
    await call(
      'a long task, streaming progress',
      'long_task',
      { steps: 3, delayMs: 50 },
      ['result'],
      () => {
        progress++;
      },
    );
    if (progress !== 3) {
      throw new McpDemoError(`long_task: the agent got ${progress} progress notifications, not 3`);
    }
    (steps.at(-1) as McpDemoStep).detail += ` (${progress} progress notifications)`;
    await call('a tool that fails (passed through)', 'deploy_service', { service: 'api' }, [
      'error result',
    ]);
    return { listed, steps, receiptIds, session };
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
}

async function callOnce(
  client: Client,
  title: string,
  name: string,
  args: Record<string, unknown>,
  onprogress?: () => void,
): Promise<McpDemoStep> {
  try {
    const result = await client.callTool(
      { name, arguments: args },
      undefined,
      onprogress ? { onprogress } : undefined,
    );
    const text = (result.content as Array<{ type: string; text?: string }>)
      .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
      .join(' ');
    return { title, outcome: result.isError ? 'error result' : 'result', detail: text };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { title, outcome: 'JSON-RPC error', detail: `${error.code} ${error.message}` };
  }
}
