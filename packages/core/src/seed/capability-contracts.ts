import type { CapabilityContract, JsonSchemaDocument } from '../resources/capability-contract.ts';
import { API_VERSION, type ObjectMeta } from '../resources/envelope.ts';
import type { CapabilityContractId } from '../resources/vocabulary.ts';

/** Creation time of every seeded object: fixed, so seeding twice yields identical objects. */
export const SEED_CREATION_TIMESTAMP = '2026-01-01T00:00:00Z';

/**
 * Marks seeded objects, like Kubernetes' `kubernetes.io/bootstrapping` label on its default
 * roles, so operators can tell them apart from what they created themselves.
 */
export const SEED_LABEL = 'toolgate.dev/seed';

/**
 * A UUID (RFC 9562 version 8, "custom") derived from kind and name. Seeds must not depend on a
 * random source or a clock, and two installations seeding the same object should agree on it.
 */
export function seedUid(kind: string, name: string): string {
  const input = `${API_VERSION}/${kind}/${name}`;
  let hex = '';
  for (let round = 0; round < 4; round++) {
    // FNV-1a, four independently salted 32-bit rounds: not cryptographic, only stable and spread.
    let hash = 0x811c9dc5;
    for (const char of `${round}:${input}`) {
      hash ^= char.codePointAt(0) ?? 0;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hex += hash.toString(16).padStart(8, '0');
  }
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-');
}

/** Metadata of a seeded object at its first generation. */
export function seedObjectMeta(kind: string, name: string): ObjectMeta {
  return {
    name,
    uid: seedUid(kind, name),
    labels: { [SEED_LABEL]: 'true' },
    annotations: {},
    generation: 1,
    resourceVersion: '1',
    creationTimestamp: SEED_CREATION_TIMESTAMP,
  };
}

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const SHA256 = {
  type: 'string',
  pattern: '^sha256:[0-9a-f]{64}$',
  description: '"sha256:" + hex digest of the exact bytes the provider returned.',
};

const DOMAIN_LIST = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  uniqueItems: true,
};

/** Failed calls carry the provider's error code instead of results; the two are exclusive. */
const ERROR_CODE = {
  type: 'string',
  minLength: 1,
  description: "The provider's error code when the call failed (e.g. max_uses_exceeded).",
};

function contract(
  id: CapabilityContractId,
  title: string,
  description: string,
  sideEffects: CapabilityContract['spec']['sideEffects'],
  requestSchema: JsonSchemaDocument,
  evidenceSchema: JsonSchemaDocument,
): CapabilityContract {
  return {
    apiVersion: API_VERSION,
    kind: 'CapabilityContract',
    metadata: seedObjectMeta('CapabilityContract', id),
    spec: {
      id,
      title,
      description,
      requestSchema: { $schema: JSON_SCHEMA_DIALECT, ...requestSchema },
      evidenceSchema: { $schema: JSON_SCHEMA_DIALECT, ...evidenceSchema },
      sideEffects,
    },
  };
}

export const WEB_SEARCH_CONTRACT = contract(
  'wardwright.web_search.v1',
  'Web search',
  'A provider-hosted web search. Evidence records which sources came back and which were ' +
    'cited. An absent field means the surface did not expose it, never that it was empty.',
  'read',
  {
    type: 'object',
    additionalProperties: false,
    required: ['query'],
    properties: {
      query: { type: 'string', minLength: 1, description: 'The query as executed.' },
      allowed_domains: {
        ...DOMAIN_LIST,
        description: 'Only return results from these domains (subdomains included).',
      },
      blocked_domains: { ...DOMAIN_LIST, description: 'Never return results from these domains.' },
      max_results: { type: 'integer', minimum: 1 },
    },
  },
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      results: {
        type: 'array',
        description: 'Every result the search returned to the model, in order.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: {
            url: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            page_age: {
              type: 'string',
              description: 'Provider-reported freshness of the page, free text.',
            },
          },
        },
      },
      citations: {
        type: 'array',
        description: 'Sources the answer cites; usually a subset of results.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: {
            url: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            cited_text: { type: 'string', description: 'The quoted passage, when returned.' },
            start_index: { type: 'integer', minimum: 0 },
            end_index: { type: 'integer', minimum: 0 },
          },
        },
      },
      error: ERROR_CODE,
    },
  },
);

export const URL_FETCH_CONTRACT = contract(
  'wardwright.url_fetch.v1',
  'URL fetch',
  'A provider-hosted retrieval of one URL. Evidence identifies the document by hash so a ' +
    'receipt proves what was read without storing it.',
  'read',
  {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: { url: { type: 'string', format: 'uri' } },
  },
  {
    type: 'object',
    additionalProperties: false,
    anyOf: [{ required: ['content_hash'] }, { required: ['error'] }],
    properties: {
      final_url: {
        type: 'string',
        format: 'uri',
        description: 'The URL the content came from, after any redirects the surface reports.',
      },
      status: { type: 'integer', minimum: 100, maximum: 599, description: 'HTTP status.' },
      content_type: { type: 'string', description: 'Media type of the returned content.' },
      content_hash: SHA256,
      retrieved_at: { type: 'string', format: 'date-time' },
      error: ERROR_CODE,
    },
  },
);

export const FILE_SEARCH_CONTRACT = contract(
  'wardwright.file_search.v1',
  'File search',
  'A provider-hosted semantic search over vector stores the caller uploaded to the provider.',
  'read',
  {
    type: 'object',
    additionalProperties: false,
    required: ['query', 'vector_store_ids'],
    properties: {
      query: { type: 'string', minLength: 1 },
      vector_store_ids: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
      },
      max_results: { type: 'integer', minimum: 1 },
    },
  },
  {
    type: 'object',
    additionalProperties: false,
    anyOf: [{ required: ['matches'] }, { required: ['error'] }],
    properties: {
      matches: {
        type: 'array',
        description: 'Matched chunks, best first.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['file_id', 'score'],
          properties: {
            file_id: { type: 'string', minLength: 1 },
            filename: { type: 'string' },
            score: {
              type: 'number',
              description: 'Provider relevance score; not comparable across providers.',
            },
            content_hash: SHA256,
          },
        },
      },
      error: ERROR_CODE,
    },
  },
);

export const CODE_EXEC_CONTRACT = contract(
  'wardwright.code_exec.v1',
  'Code execution',
  'Code run in a provider-hosted sandbox. Output is recorded by hash: it can contain anything ' +
    'the code printed, secrets included.',
  'write',
  {
    type: 'object',
    additionalProperties: false,
    required: ['language', 'code'],
    properties: {
      language: {
        type: 'string',
        minLength: 1,
        description: 'Interpreter the code is for.',
        examples: ['python', 'bash'],
      },
      code: { type: 'string' },
    },
  },
  {
    type: 'object',
    additionalProperties: false,
    anyOf: [{ required: ['exit_code'] }, { required: ['error'] }],
    properties: {
      stdout_hash: SHA256,
      stderr_hash: SHA256,
      exit_code: { type: 'integer' },
      files: {
        type: 'array',
        description: 'Files the run produced, as the provider references them.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['file_id'],
          properties: {
            file_id: { type: 'string', minLength: 1 },
            filename: { type: 'string' },
            content_hash: SHA256,
          },
        },
      },
      error: ERROR_CODE,
    },
  },
);

const POINT = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: { x: { type: 'integer', minimum: 0 }, y: { type: 'integer', minimum: 0 } },
  description: 'Screen pixel coordinates, origin top left.',
};

export const COMPUTER_USE_CONTRACT = contract(
  'wardwright.computer_use.v1',
  'Computer use',
  'One action on a graphical desktop (click, type, screenshot, ...). Whoever executes it can ' +
    'change anything the desktop can reach.',
  'external',
  {
    type: 'object',
    additionalProperties: false,
    required: ['action'],
    properties: {
      action: {
        type: 'string',
        enum: [
          'screenshot',
          'cursor_position',
          'mouse_move',
          'click',
          'double_click',
          'triple_click',
          'mouse_down',
          'mouse_up',
          'drag',
          'scroll',
          'type',
          'key',
          'wait',
          'other',
        ],
      },
      native_action: {
        type: 'string',
        description: "The provider's own action name (e.g. left_click), kept for audit.",
      },
      button: { type: 'string', enum: ['left', 'right', 'middle'] },
      coordinate: POINT,
      text: { type: 'string', description: 'Text to type, or the key combination to press.' },
    },
  },
  {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['ok', 'error'], description: 'The action result.' },
      screenshot_hash: SHA256,
      error: { type: 'string', description: 'Why the action failed, as reported.' },
    },
  },
);

export const MCP_TOOL_CONTRACT = contract(
  'wardwright.mcp_tool.v1',
  'MCP tool call',
  'A call to a tool on a remote Model Context Protocol server. Result content is recorded by ' +
    'type and hash because it is whatever the remote server chose to return.',
  'external',
  {
    type: 'object',
    additionalProperties: false,
    required: ['server', 'tool', 'arguments'],
    properties: {
      server: { type: 'string', minLength: 1, description: 'The server name as configured.' },
      tool: { type: 'string', minLength: 1 },
      arguments: { type: 'object' },
    },
  },
  {
    type: 'object',
    additionalProperties: false,
    required: ['content', 'is_error'],
    properties: {
      content: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['type'],
          properties: {
            type: { type: 'string', examples: ['text', 'image', 'resource', 'resource_link'] },
            mime_type: { type: 'string' },
            uri: { type: 'string' },
            content_hash: SHA256,
          },
        },
      },
      is_error: { type: 'boolean' },
    },
  },
);

/** The six seeded contracts, in `CAPABILITY_CONTRACT_IDS` order. */
export const SEED_CAPABILITY_CONTRACTS: readonly CapabilityContract[] = [
  WEB_SEARCH_CONTRACT,
  URL_FETCH_CONTRACT,
  FILE_SEARCH_CONTRACT,
  CODE_EXEC_CONTRACT,
  COMPUTER_USE_CONTRACT,
  MCP_TOOL_CONTRACT,
];
