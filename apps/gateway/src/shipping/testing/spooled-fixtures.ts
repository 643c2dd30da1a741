import {
  buildReceiptBody,
  type CompiledBundle,
  chainReceiptJson,
  compileBundle,
  enforceResponseBody,
  mediateRequest,
  type StoredReceipt,
} from '@toolgate/core';
import { encodeSpooledReceipt, type SpooledReceipt } from '../../receipts/spooled-receipt.ts';
import type { Spool } from '../../spool/spool.ts';

/**
 * Spool records as the proxy writes them, made by the real engine: a request mediated by a
 * policy that hides PR creation and annotates search tools, the provider's answer enforced, the
 * receipt built and chained, and the declarations it references by schema hash. Test support.
 */

let bundle: CompiledBundle | undefined;
function fixtureBundle(): CompiledBundle {
  bundle ??= compileBundle({
    policies: [
      {
        name: 'guardrails',
        generation: 2,
        spec: {
          rules: [
            { id: 'hide-pr-creation', action: 'hide', match: { name: 'create_pull_request' } },
            {
              id: 'search-read-only',
              action: 'augment',
              match: { name: 'search*' },
              description_append: 'Read only.',
            },
          ],
        },
      },
    ],
  });
  return bundle;
}

function openAITool(name: string, variant: number) {
  return {
    type: 'function',
    function: {
      name,
      description: `${name.replaceAll('_', ' ')} (v${variant}): acts on the repository.`,
      parameters: {
        type: 'object',
        properties: { repo: { type: 'string' }, query: { type: 'string' } },
        required: ['repo'],
      },
    },
  };
}

/** The record for request `index` of a gateway, chained after `prevHash`. */
export function spooledReceipt(
  gateway: string,
  id: string,
  index: number,
  prevHash: string | null,
): SpooledReceipt {
  // A handful of declaration variants, so batches share some schemas and not others.
  const variant = index % 5;
  const tools = ['search_code', 'read_file', 'create_pull_request'];
  const identity = { human: 'alice', session: `session-${index % 3}` };
  const mediation = mediateRequest(fixtureBundle(), {
    surface: 'openai-chat',
    body: {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `Find the retry settings (${index}).` }],
      tools: tools.map((name) => openAITool(name, variant)),
    },
    identity,
  });
  const calls = index % 4 === 0 ? ['create_pull_request'] : ['search_code'];
  const response = enforceResponseBody(
    {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: calls.map((name, i) => ({
              id: `call_${i}`,
              type: 'function',
              function: { name, arguments: `{"repo":"acme/app","query":"retry ${index}"}` },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
    },
    mediation.response,
  );
  const received = Date.UTC(2026, 0, 2, 3, 4, 5) + index * 1000;
  const body = buildReceiptBody({
    id,
    gateway,
    receivedAt: new Date(received).toISOString(),
    completedAt: new Date(received + 420).toISOString(),
    latencyMs: { total: 420, mediation: 0.3, upstream: 419.5 },
    identity: { ...identity, binding: 'verified' },
    bundleEtag: `sha256:${'e'.repeat(64)}`,
    mediation,
    outcome: { status: 200 },
    response: response.evidence,
  });
  const chained = chainReceiptJson(body, prevHash);
  return {
    hash: chained.hash,
    receipt: JSON.parse(chained.json) as StoredReceipt,
    schemas: Object.fromEntries(mediation.schemas),
    tool_sets: { [chained.toolSetHash]: chained.toolSet },
  };
}

/** Appends `count` receipts continuing the spool's chain, as concurrent requests would. */
export async function appendReceipts(
  spool: Spool<SpooledReceipt>,
  gateway: string,
  count: number,
  tag: string,
): Promise<SpooledReceipt[]> {
  const records: SpooledReceipt[] = [];
  const appends: Array<Promise<unknown>> = [];
  for (let i = 0; i < count; i++) {
    // Receipt ids are unique across gateways: the gateway's name keeps tests apart.
    const id = `${gateway}-${tag}-${String(i).padStart(4, '0')}`;
    const record = spooledReceipt(gateway, id, i, spool.chainHead());
    records.push(record);
    // Both layouts a spool can hold after an upgrade: the gateway's spliceable one, plain JSON.
    const encoded = encodeSpooledReceipt({
      id,
      hash: record.hash,
      receiptJson: JSON.stringify(record.receipt),
      schemas: record.schemas,
      toolSets: record.tool_sets ?? {},
    });
    appends.push(i % 2 === 0 ? spool.appendEncoded(encoded, record.hash) : spool.append(record));
  }
  await Promise.all(appends);
  return records;
}
