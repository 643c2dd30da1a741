import {
  buildReceiptBody,
  type CompiledBundle,
  chainReceipt,
  compileBundle,
  enforceResponseBody,
  mediateRequest,
  type Receipt,
  type ReceiptBody,
} from '@toolgate/core';

/**
 * Realistic receipts for tests and benchmarks, made by the real engine: a request is mediated
 * by a two-policy bundle, the provider's answer is enforced, and the receipt is built and
 * chained the way a gateway does it. Test support only.
 */

/** `guardrails` hides PR creation and deletions; `annotate` augments search tools. */
export const FIXTURE_POLICIES = [
  {
    name: 'guardrails',
    generation: 1,
    spec: {
      priority: 10,
      rules: [
        { id: 'hide-pr-creation', action: 'hide', match: { name: 'create_pull_request' } },
        { id: 'hide-deletes', action: 'hide', match: { name: 'delete_*' } },
      ],
    },
  },
  {
    name: 'annotate',
    generation: 3,
    spec: {
      rules: [
        {
          id: 'search-read-only',
          action: 'augment',
          match: { name: 'search*' },
          description_append: 'Read only.',
        },
      ],
    },
  },
];

let bundle: CompiledBundle | undefined;
function fixtureBundle(): CompiledBundle {
  bundle ??= compileBundle({ policies: FIXTURE_POLICIES });
  return bundle;
}

export interface FixtureReceipt {
  id: string;
  gateway: string;
  /** ISO time; also the base of completed_at. */
  receivedAt: string;
  /** Function tools the agent declared. */
  tools?: string[];
  /** Tool calls the provider answered with (a hidden tool's call is blocked). */
  calls?: string[];
  identity?: { human?: string; service?: string; session?: string };
  status?: number;
  /**
   * The request switches on OpenAI's hosted web search (`web_search_options`) and the answer
   * cites a source: capability `wardwright.web_search.v1` on the request and the response side.
   */
  webSearch?: boolean;
}

function openAITool(name: string) {
  return {
    type: 'function',
    function: {
      name,
      description: `${name.replaceAll('_', ' ')}: acts on the repository and reports back.`,
      parameters: {
        type: 'object',
        properties: {
          repo: { type: 'string', description: 'owner/name of the repository' },
          query: { type: 'string' },
          limit: { type: 'integer', minimum: 1, maximum: 100 },
        },
        required: ['repo'],
      },
    },
  };
}

/** A receipt body as the gateway would write it for one chat completion. */
export function fixtureReceiptBody(input: FixtureReceipt): ReceiptBody {
  const tools = input.tools ?? ['search_code', 'read_file'];
  const identity = input.identity ?? { human: 'alice', session: 'session-1' };
  const mediation = mediateRequest(fixtureBundle(), {
    surface: 'openai-chat',
    body: {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Find where retries are configured.' }],
      tools: tools.map(openAITool),
      ...(input.webSearch ? { web_search_options: {} } : {}),
    },
    identity,
  });
  const calls = input.calls ?? [];
  const response = enforceResponseBody(
    {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: calls.length === 0 ? 'Done.' : null,
            ...(input.webSearch
              ? {
                  annotations: [
                    { type: 'url_citation', url_citation: { url: 'https://docs.example/retry' } },
                  ],
                }
              : {}),
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((name, index) => ({
                    id: `call_${index}`,
                    type: 'function',
                    function: { name, arguments: `{"repo":"acme/app","query":"retry ${index}"}` },
                  })),
                }
              : {}),
          },
          finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
    },
    mediation.response,
  );
  const received = Date.parse(input.receivedAt);
  return buildReceiptBody({
    id: input.id,
    gateway: input.gateway,
    receivedAt: new Date(received).toISOString(),
    completedAt: new Date(received + 420).toISOString(),
    latencyMs: { total: 420, mediation: 0.3, upstream: 419.5 },
    identity: { ...identity, binding: 'verified' },
    bundleEtag: `sha256:${'e'.repeat(64)}`,
    mediation,
    outcome: { status: input.status ?? 200 },
    response: response.evidence,
  });
}

/** Links bodies into a chain continuing from `prevHash`. */
export function chainOf(bodies: ReadonlyArray<ReceiptBody>, prevHash: string | null = null) {
  const receipts: Receipt[] = [];
  let prev = prevHash;
  for (const body of bodies) {
    const receipt = chainReceipt(body, prev);
    receipts.push(receipt);
    prev = receipt.hash;
  }
  return receipts;
}
