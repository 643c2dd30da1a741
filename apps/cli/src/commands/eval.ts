import { readFile } from 'node:fs/promises';
import {
  BadRequestError,
  bindIdentity,
  buildReceiptBody,
  chainReceipt,
  compileBundle,
  createMemoryCallGate,
  detectSurface,
  enforceResponse,
  hashCanonical,
  type IdentityClaims,
  type IdentityPolicy,
  type KnownApproval,
  mediateRequest,
  provenIdentity,
  type ResponseEvidence,
  type Surface,
} from '@toolgate/core';
import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { readDocuments, readSingleDocument } from '../documents.ts';
import { policiesFromDocuments } from '../policy-documents.ts';

export interface EvalOptions {
  policy: string[];
  request: string;
  surface?: 'openai' | 'anthropic' | 'responses' | 'gemini';
  /** Gemini's model (its requests name it in the URL path, not the body). */
  model?: string;
  response?: string;
  user?: string;
  service?: string;
  session?: string;
  proven?: boolean;
  now: string;
  gateway: string;
  approved?: string[];
  denied?: string[];
}

export function registerEval(program: Command, ctx: CliContext): void {
  program
    .command('eval')
    .summary('run the mediation engine locally on a request')
    .description(
      [
        'Runs the mediation engine locally: applies the policy to a provider request and prints',
        '{"providerRequest": …, "receipt": …} as JSON. Nothing is sent anywhere.',
        '',
        'The policy file holds a MediationPolicy resource (YAML or JSON, several documents',
        'allowed: they merge by priority, then name) or a bare `tool_mediation:` block.',
        'The request file holds an OpenAI Chat Completions, Anthropic Messages, OpenAI',
        'Responses or Gemini generateContent request body. A Gemini request names its model in',
        'the URL path, so give it with --model (or as a "model" field of the file).',
        'With --response, the provider response (JSON body, or an SSE stream as text) is run',
        'through response-side enforcement too: "agentResponse" is printed as well, and',
        '"decisions" lists what call-time rules (deny, require_approval, rate_limit) decided',
        'per tool call, with "approvalRequests" for calls a gateway would ask approval for.',
        'Approvals are none unless --approved / --denied name action ids; rate limits start',
        'with full buckets.',
        '',
        'Output is deterministic: the same inputs always print the same bytes.',
        'Exit codes: 0 ok, 1 invalid policy, request or response (the message names the field),',
        '2 wrong usage.',
      ].join('\n'),
    )
    .requiredOption('-p, --policy <file...>', 'policy file(s): YAML or JSON')
    .requiredOption('-r, --request <file>', 'provider request body: JSON or YAML')
    .option(
      '-s, --surface <surface>',
      'openai | anthropic | responses | gemini (default: detected from the request; openai when unsure)',
    )
    .option('-m, --model <name>', 'the model of a Gemini request (gemini-2.5-flash)')
    .option('--response <file>', 'provider response to enforce: JSON body or SSE text')
    .option('--user <id>', 'x-user-id of the calling agent')
    .option('--service <id>', 'x-service-id of the calling agent')
    .option('--session <id>', 'x-session-id of the calling agent')
    .option(
      '--proven',
      'bind --user or --service as a Toolgate token proves its owner (binding verified); without it they are unproven header claims',
    )
    .option('--approved <action_id...>', 'treat these actions as approved (act_…)')
    .option('--denied <action_id...>', 'treat these actions as denied (act_…)')
    .option('--now <iso>', 'timestamp for the receipt', '1970-01-01T00:00:00.000Z')
    .option('--gateway <name>', 'gateway name for the receipt', 'local')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  toolgate eval --policy examples/policies/github-guardrails.yaml \\',
        '                --request examples/requests/openai-chat.json',
        '  toolgate eval -p policy.yaml -r request.json --surface anthropic --user alice',
        '  toolgate eval -p examples/policies/github-guardrails.yaml \\',
        '                -r examples/requests/openai-responses.json \\',
        '                --response examples/responses/openai-responses.json',
        '  toolgate eval -p examples/policies/github-guardrails.yaml --surface responses \\',
        '                -r examples/requests/openai-responses.json \\',
        '                --response examples/responses/openai-responses-stream.sse',
        '  toolgate eval -p policy.yaml -r gemini-request.json --model gemini-2.5-flash',
        '  toolgate eval -p policy.yaml -r request.json --response answer.json \\',
        '                --user alice --proven --approved act_0123456789abcdef0123456789abcdef',
      ].join('\n'),
    )
    .action(async (options: EvalOptions) => {
      const output = await runEval(options);
      ctx.io.stdout(`${JSON.stringify(output, null, 2)}\n`);
    });
}

export async function runEval(options: EvalOptions): Promise<Record<string, unknown>> {
  const policies = [];
  for (const file of options.policy) {
    policies.push(...policiesFromDocuments(await readDocuments(file), file));
  }
  const request = await readSingleDocument(options.request);
  const surface = surfaceOf(options.surface, request);
  const bundle = compileBundle({ policies });
  const claims = {
    ...(options.user ? { human: options.user } : {}),
    ...(options.service ? { service: options.service } : {}),
    ...(options.session ? { session: options.session } : {}),
  };
  const bound = options.proven
    ? provenCaller(options, claims, bundle)
    : bindIdentity(claims, [], bundle);
  const identity = bound.receipt;
  const gate = createMemoryCallGate({ approvals: approvalsOf(options), now: () => 0 });
  const response = options.response ? await readResponse(options.response) : undefined;
  const target = surface === 'gemini' ? geminiTarget(options.model, request, response) : undefined;
  const result = mediateRequest(bundle, {
    surface,
    body: request,
    identity: bound.rules,
    gate,
    ...(target ? { target } : {}),
  });

  let agentResponse: unknown;
  let evidence: ResponseEvidence | undefined;
  if (response) {
    const enforced = enforceResponse(response, result.response);
    agentResponse = enforced.body;
    evidence = enforced.evidence;
  }
  const body = buildReceiptBody({
    id: `eval-${hashCanonical(request).slice(7, 23)}`,
    gateway: options.gateway,
    receivedAt: isoOrThrow(options.now),
    completedAt: isoOrThrow(options.now),
    latencyMs: { total: 0, mediation: 0, upstream: 0 },
    identity,
    bundleEtag: bundle.etag,
    mediation: result,
    outcome: { status: 200 },
    ...(evidence ? { response: evidence } : {}),
    // No release clock here: elapsed_ms stays null.
    toolResults: result.toolResults,
  });
  return {
    providerRequest: result.body,
    ...(options.response ? { agentResponse } : {}),
    ...(evidence ? { decisions: decisionsOf(evidence), approvalRequests: gate.requested } : {}),
    receipt: chainReceipt(body, null),
  };
}

/** Per tool call: what the policy decided, in one line each (the receipt has the details). */
function decisionsOf(evidence: ResponseEvidence) {
  return evidence.tool_calls.map((call) => ({
    id: call.id,
    name: call.name,
    action_id: call.action_id,
    policy_state: call.policy_state,
    ...(call.reason ? { reason: call.reason } : {}),
    ...(call.decision ?? {}),
  }));
}

function approvalsOf(options: EvalOptions): Map<string, KnownApproval> {
  const approvals = new Map<string, KnownApproval>();
  for (const [flag, ids, state] of [
    ['--approved', options.approved, 'approved'],
    ['--denied', options.denied, 'denied'],
  ] as const) {
    for (const id of ids ?? []) {
      if (!/^act_[0-9a-f]{32}$/.test(id)) {
        throw new BadRequestError(`${flag}: not an action id (act_ + 32 hex digits): ${id}`);
      }
      approvals.set(id, { state });
    }
  }
  return approvals;
}

/** The identity a token would prove: one owner, a human (`--user`) or a service (`--service`). */
function provenCaller(options: EvalOptions, claims: IdentityClaims, policy: IdentityPolicy) {
  if ((options.user === undefined) === (options.service === undefined)) {
    throw new BadRequestError(
      '--proven: give exactly one of --user or --service (a token proves one identity)',
    );
  }
  const owner = options.user
    ? { name: options.user, type: 'human' as const }
    : { name: options.service as string, type: 'service' as const };
  return provenIdentity(owner, claims, policy);
}

/** A response file: a JSON body, or an SSE stream kept as text. */
async function readResponse(path: string): Promise<{ sse: string } | { json: unknown }> {
  const text = await readFile(path, 'utf8').catch(() => {
    throw new BadRequestError(`${path}: no such file`);
  });
  if (/^\s*(data|event|:)/.test(text)) return { sse: text };
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    throw new BadRequestError(`${path}: invalid JSON: ${(error as Error).message}`);
  }
}

const SURFACE_OPTIONS: Readonly<Record<string, Surface>> = {
  openai: 'openai-chat',
  anthropic: 'anthropic-messages',
  responses: 'openai-responses',
  gemini: 'gemini',
};

function surfaceOf(option: string | undefined, request: unknown): Surface {
  if (option === undefined) return detectSurface(request);
  const surface = SURFACE_OPTIONS[option];
  if (surface !== undefined) return surface;
  const names = Object.keys(SURFACE_OPTIONS).map((name) => `"${name}"`);
  throw new BadRequestError(`--surface: must be one of ${names.join(', ')}, not "${option}"`);
}

/**
 * What the URL of a Gemini request would say: the model (`--model`, else the file's `model`)
 * and whether it streams (the response given is an SSE stream).
 */
function geminiTarget(
  model: string | undefined,
  request: unknown,
  response: { sse: string } | { json: unknown } | undefined,
): { model: string; stream: boolean } {
  const inFile = (request as { model?: unknown } | null)?.model;
  const chosen = model ?? (typeof inFile === 'string' ? inFile : undefined);
  if (chosen === undefined) {
    throw new BadRequestError(
      '--model: a Gemini request names its model in the URL path; give it with --model',
    );
  }
  return { model: chosen, stream: response !== undefined && 'sse' in response };
}

function isoOrThrow(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new BadRequestError(`--now: not an ISO timestamp: ${value}`);
  return date.toISOString();
}
