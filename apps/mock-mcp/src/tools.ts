import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** The server's name and version in `initialize`. */
export const SERVER_INFO = { name: 'toolgate-demo-mcp', version: '0.1.0' } as const;

/** What every tool's original description says (drift replaces it, `restore` brings it back). */
export const TOOL_DESCRIPTIONS = {
  echo: 'Echo the text back. Cheap and deterministic: the benchmark calls it.',
  search_issues: 'Search the issues of a repository. Answers the same issues for the same query.',
  create_issue: 'Open an issue in a repository and return its number and URL.',
  delete_repo: 'Delete a repository and everything in it. Irreversible.',
  long_task:
    'Run a task of several steps, reporting progress after each one (when the caller asks for progress).',
  deploy_service: 'Deploy a service. Always fails on this demo server (a tool error, isError).',
} as const;
export type DemoToolName = keyof typeof TOOL_DESCRIPTIONS;
export const DEMO_TOOLS = Object.keys(TOOL_DESCRIPTIONS) as DemoToolName[];

/** Bounds of what a caller may ask of the long task (steps × delay ≤ 50 s). */
export const LONG_TASK_LIMITS = { steps: 50, delayMs: 1000 } as const;

const Repo = z
  .string()
  .max(201)
  .regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'must be "owner/name"')
  .describe('owner/name, e.g. acme/app');

const Issue = z.object({
  number: z.number().int(),
  title: z.string(),
  state: z.enum(['open', 'closed']),
  url: z.string(),
});

/** A stable number in 1..max derived from `parts` (same input, same answer on every run). */
function stableNumber(max: number, ...parts: string[]): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return (digest.readUInt32BE(0) % max) + 1;
}

export interface DemoServerHooks {
  /** Called for every tool call before it is answered (the call log). */
  onCall(tool: DemoToolName, args: unknown, session: string | undefined): void;
  /** The description each tool has now (a drift changes it for every session). */
  description(tool: DemoToolName): string;
}

/**
 * One `McpServer` with the demo tools (one per session: the SDK binds a server to one
 * transport), a resource and a prompt. Every answer depends only on the arguments.
 */
export function createDemoServer(hooks: DemoServerHooks): {
  server: McpServer;
  tools: Record<DemoToolName, RegisteredTool>;
} {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
    instructions: 'A deterministic demo server for Toolgate: nothing it does is real.',
  });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

  const echo = server.registerTool(
    'echo',
    {
      description: hooks.description('echo'),
      inputSchema: { text: z.string().max(10_000) },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    ({ text: value }, extra) => {
      hooks.onCall('echo', { text: value }, extra.sessionId);
      return text(value);
    },
  );

  const searchIssues = server.registerTool(
    'search_issues',
    {
      title: 'Search issues',
      description: hooks.description('search_issues'),
      inputSchema: {
        repo: Repo,
        query: z.string().min(1).max(200),
        limit: z.number().int().min(1).max(20).optional(),
      },
      outputSchema: { issues: z.array(Issue) },
      annotations: { readOnlyHint: true },
    },
    (args, extra) => {
      hooks.onCall('search_issues', args, extra.sessionId);
      const count = Math.min(args.limit ?? 3, stableNumber(5, args.repo, args.query));
      const issues = Array.from({ length: count }, (_, i) => {
        const number = stableNumber(900, args.repo, args.query, String(i)) + 100 * i;
        return {
          number,
          title: `${args.query} (${['flaky', 'slow', 'broken', 'unclear', 'missing'][i % 5]})`,
          state: i % 3 === 2 ? ('closed' as const) : ('open' as const),
          url: `https://example.test/${args.repo}/issues/${number}`,
        };
      });
      return {
        content: [{ type: 'text' as const, text: JSON.stringify({ issues }) }],
        structuredContent: { issues },
      };
    },
  );

  const createIssue = server.registerTool(
    'create_issue',
    {
      title: 'Create issue',
      description: hooks.description('create_issue'),
      inputSchema: {
        repo: Repo,
        title: z.string().min(1).max(256),
        body: z.string().max(10_000).optional(),
      },
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    (args, extra) => {
      hooks.onCall('create_issue', args, extra.sessionId);
      const number = stableNumber(9000, args.repo, args.title) + 1000;
      return text(`Opened issue #${number}: https://example.test/${args.repo}/issues/${number}`);
    },
  );

  const deleteRepo = server.registerTool(
    'delete_repo',
    {
      title: 'Delete repository',
      description: hooks.description('delete_repo'),
      inputSchema: { repo: Repo },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args, extra) => {
      hooks.onCall('delete_repo', args, extra.sessionId);
      return text(`Deleted ${args.repo} (not really: this is the demo server).`);
    },
  );

  const longTask = server.registerTool(
    'long_task',
    {
      description: hooks.description('long_task'),
      inputSchema: {
        steps: z.number().int().min(1).max(LONG_TASK_LIMITS.steps).default(5),
        delayMs: z.number().int().min(0).max(LONG_TASK_LIMITS.delayMs).default(100),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ steps, delayMs }, extra) => {
      hooks.onCall('long_task', { steps, delayMs }, extra.sessionId);
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        // Aborted when the caller cancels or the session closes: stop working at once.
        await sleep(delayMs, undefined, { signal: extra.signal });
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: steps, message: `step ${step}` },
          });
        }
      }
      return text(`Done: ${steps} steps.`);
    },
  );

  const deployService = server.registerTool(
    'deploy_service',
    {
      description: hooks.description('deploy_service'),
      inputSchema: { service: z.string().min(1).max(100) },
    },
    (args, extra) => {
      hooks.onCall('deploy_service', args, extra.sessionId);
      return {
        ...text(`Deploy of ${args.service} failed: the environment is locked (demo error).`),
        isError: true,
      };
    },
  );

  server.registerResource(
    'readme',
    'demo://readme',
    { title: 'About this server', mimeType: 'text/markdown' },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text: '# Demo MCP server\n\nDeterministic tools for trying Toolgate. Nothing here is real.\n',
        },
      ],
    }),
  );

  server.registerPrompt(
    'triage_issue',
    {
      title: 'Triage an issue',
      description: 'Ask the model to triage one issue of a repository.',
      argsSchema: { repo: Repo, number: z.string().regex(/^\d{1,9}$/, 'must be an issue number') },
    },
    ({ repo, number }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Triage issue #${number} of ${repo}: label it and say why.`,
          },
        },
      ],
    }),
  );

  return {
    server,
    tools: {
      echo,
      search_issues: searchIssues,
      create_issue: createIssue,
      delete_repo: deleteRepo,
      long_task: longTask,
      deploy_service: deployService,
    },
  };
}
