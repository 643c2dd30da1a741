import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MediationPolicySpecInput } from '@toolgate/core';

/** Shared by the tool loop's gateway tests (hosted/tool-loop*.test.ts). */

/** The agent's tool whose full schema the model must fetch with tool_info before calling it. */
export const CREATE_ISSUE_SCHEMA = {
  type: 'object',
  properties: {
    owner: { type: 'string', description: 'Repository owner (user or organisation)' },
    repo: { type: 'string', description: 'Repository name' },
    title: { type: 'string', description: 'Issue title' },
    labels: { type: 'array', items: { type: 'string' }, description: 'Labels to add' },
  },
  required: ['owner', 'repo', 'title'],
  additionalProperties: false,
} as const;
export const CREATE_ISSUE_DESCRIPTION =
  'Create a new issue in a GitHub repository. Use it when the user asks to file a bug or a task.';
export const LIST_ISSUES_SCHEMA = {
  type: 'object',
  properties: { owner: { type: 'string' }, repo: { type: 'string' }, state: { type: 'string' } },
  required: ['owner', 'repo'],
} as const;

export const ISSUE_ARGUMENTS = { owner: 'acme', repo: 'web', title: 'Login button is broken' };

export const COMPACT_POLICY = (hosted?: MediationPolicySpecInput['hosted']) => ({
  name: 'progressive-disclosure',
  spec: {
    mode: 'execute' as const,
    ...(hosted ? { hosted } : {}),
    rules: [
      { id: 'compact-all', action: 'compact' as const, match: { name: '*' }, description_max: 40 },
    ],
  },
});

/** The mock's script: tool_info for the full schema, then the real call with its arguments. */
export const DISCLOSURE_SCRIPT = {
  rounds: [
    { call: 'tool_info', arguments: { name: 'create_issue', include_schema: true } },
    { call: 'create_issue', arguments: ISSUE_ARGUMENTS, text: 'Filing it now.' },
  ],
};

/** The mock's script: a model that asks for tool_info again and again. */
export const GREEDY_SCRIPT = {
  rounds: [{ call: 'tool_info', arguments: { name: 'create_issue' } }],
};

export const say = (script: object) => `mock: ${JSON.stringify(script)}`;

/** A real HTTP endpoint for a HostedTool: answers per `behaviour`, counts its calls. */
export interface HostedEndpoint {
  url: string;
  calls: unknown[];
  behaviour: 'ok' | 'down' | 'slow' | 'garbage';
  close(): Promise<void>;
}

export async function startHostedEndpoint(): Promise<HostedEndpoint> {
  const state: HostedEndpoint = {
    url: '',
    calls: [],
    behaviour: 'ok',
    close: async () => {},
  };
  const open = new Set<ServerResponse>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      state.calls.push(JSON.parse(body || '{}'));
      if (state.behaviour === 'slow') {
        open.add(response);
        return; // never answers
      }
      if (state.behaviour === 'down') {
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end('{"error":"backend down"}');
        return;
      }
      if (state.behaviour === 'garbage') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('<html>not json');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ results: [{ title: 'Toolgate docs', url: 'https://example.com' }] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
  state.close = async () => {
    for (const response of open) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/** A HostedTool resource pointing at `url`, as a bundle carries it. */
export function searchTool(url: string, timeout = '2s') {
  return {
    name: 'approved-web-search',
    spec: {
      tool: {
        name: 'approved_web_search',
        description: 'Searches the web through the approved backend.',
        parameters: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
      endpoint: { url, timeout, retries: 0, maxResponseBytes: 65536 },
    },
  };
}

export const HOST_POLICY = (hosted?: MediationPolicySpecInput['hosted']) => ({
  name: 'hosted-search',
  spec: {
    mode: 'execute' as const,
    ...(hosted ? { hosted } : {}),
    rules: [
      { id: 'offer-search', action: 'host' as const, tool: 'approved-web-search', match: {} },
    ],
  },
});

export const SEARCH_SCRIPT = {
  rounds: [
    { call: 'approved_web_search', arguments: { query: 'toolgate' } },
    { text: 'Here is what I found.' },
  ],
};
