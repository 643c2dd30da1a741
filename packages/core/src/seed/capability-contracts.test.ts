import { describe, expect, it } from 'vitest';
import { CapabilityContract } from '../resources/capability-contract.ts';
import { CAPABILITY_CONTRACT_IDS } from '../resources/vocabulary.ts';
import { parseOrThrow } from '../validate.ts';
import {
  SEED_CAPABILITY_CONTRACTS,
  SEED_CREATION_TIMESTAMP,
  SEED_LABEL,
  seedObjectMeta,
  seedUid,
} from './capability-contracts.ts';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Every place in a JSON Schema where `required` names a property that `properties` does not
 * define: a typo there makes a field mandatory that no producer can ever fill.
 */
function undefinedRequired(schema: unknown, path = '#'): string[] {
  if (Array.isArray(schema))
    return schema.flatMap((item, i) => undefinedRequired(item, `${path}/${i}`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const check = (required: unknown, at: string) => {
    for (const name of (required as string[] | undefined) ?? []) {
      if (!Object.hasOwn(properties, name)) problems.push(`${at}: ${name}`);
    }
  };
  check(node.required, path);
  for (const [i, branch] of ((node.anyOf ?? []) as Array<Record<string, unknown>>).entries()) {
    check(branch.required, `${path}/anyOf/${i}`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'anyOf') problems.push(...undefinedRequired(value, `${path}/${key}`));
  }
  return problems;
}

describe('SEED_CAPABILITY_CONTRACTS', () => {
  it('are the six contract ids of the vocabulary, in order', () => {
    expect(SEED_CAPABILITY_CONTRACTS.map((c) => c.spec.id)).toEqual([...CAPABILITY_CONTRACT_IDS]);
  });

  it.each(SEED_CAPABILITY_CONTRACTS.map((c) => [c.spec.id, c] as const))(
    '%s parses as a CapabilityContract unchanged',
    (_id, contract) => {
      expect(parseOrThrow(CapabilityContract, contract, 'CapabilityContract')).toEqual(contract);
    },
  );

  it.each(SEED_CAPABILITY_CONTRACTS.map((c) => [c.spec.id, c] as const))(
    '%s has first-generation seed metadata named after its id',
    (id, contract) => {
      expect(contract.metadata).toEqual({
        name: id,
        uid: seedUid('CapabilityContract', id),
        labels: { [SEED_LABEL]: 'true' },
        annotations: {},
        generation: 1,
        resourceVersion: '1',
        creationTimestamp: '2026-01-01T00:00:00Z',
      });
    },
  );

  it.each(SEED_CAPABILITY_CONTRACTS.map((c) => [c.spec.id, c] as const))(
    '%s has object schemas whose required fields exist',
    (_id, contract) => {
      for (const schema of [contract.spec.requestSchema, contract.spec.evidenceSchema]) {
        expect(schema.type).toBe('object');
        expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
        expect(undefinedRequired(schema)).toEqual([]);
      }
    },
  );

  it.each<[string, string[], string[]]>([
    [
      'wardwright.web_search.v1',
      ['query', 'allowed_domains', 'blocked_domains', 'max_results'],
      ['results', 'citations'],
    ],
    ['wardwright.url_fetch.v1', ['url'], ['final_url', 'status', 'content_type', 'content_hash']],
    ['wardwright.file_search.v1', ['query', 'vector_store_ids'], ['matches']],
    [
      'wardwright.code_exec.v1',
      ['language', 'code'],
      ['stdout_hash', 'stderr_hash', 'exit_code', 'files'],
    ],
    ['wardwright.computer_use.v1', ['action', 'coordinate', 'text'], ['screenshot_hash', 'status']],
    ['wardwright.mcp_tool.v1', ['server', 'tool', 'arguments'], ['content', 'is_error']],
  ])('%s normalizes the expected request and evidence fields', (id, request, evidence) => {
    const contract = SEED_CAPABILITY_CONTRACTS.find((c) => c.spec.id === id);
    const keys = (schema: Record<string, unknown> | undefined) =>
      Object.keys((schema?.properties ?? {}) as Record<string, unknown>);
    expect(keys(contract?.spec.requestSchema)).toEqual(expect.arrayContaining(request));
    expect(keys(contract?.spec.evidenceSchema)).toEqual(expect.arrayContaining(evidence));
  });

  it('grades side effects from read-only to external', () => {
    expect(
      Object.fromEntries(SEED_CAPABILITY_CONTRACTS.map((c) => [c.spec.id, c.spec.sideEffects])),
    ).toEqual({
      'wardwright.web_search.v1': 'read',
      'wardwright.url_fetch.v1': 'read',
      'wardwright.file_search.v1': 'read',
      'wardwright.code_exec.v1': 'write',
      'wardwright.computer_use.v1': 'external',
      'wardwright.mcp_tool.v1': 'external',
    });
  });
});

describe('seed metadata', () => {
  it('derives stable, distinct RFC 9562 v8 uids', () => {
    const uids = SEED_CAPABILITY_CONTRACTS.map((c) => c.metadata.uid);
    for (const uid of uids) expect(uid).toMatch(UUID_V8);
    expect(new Set(uids).size).toBe(uids.length);
    // Golden value: changing the derivation would give every installation's seeds new uids.
    expect(seedUid('ProviderProfile', 'openai-chat')).toBe('0dea6f44-817b-8433-b91a-13aa80192c59');
    expect(seedUid('ProviderProfile', 'openai-chat')).not.toBe(seedUid('Identity', 'openai-chat'));
  });

  it('builds first-generation metadata', () => {
    const meta = seedObjectMeta('Identity', 'admin');
    expect(meta).toMatchObject({ name: 'admin', generation: 1, resourceVersion: '1' });
    expect(meta.creationTimestamp).toBe(SEED_CREATION_TIMESTAMP);
  });
});
