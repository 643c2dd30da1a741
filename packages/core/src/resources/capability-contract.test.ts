import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../validate.ts';
import { CapabilityContract, CapabilityContractInput, ContractId } from './capability-contract.ts';
import { API_VERSION } from './envelope.ts';
import { CAPABILITY_CONTRACT_IDS } from './vocabulary.ts';

function failingFields(schema: z.ZodType, input: unknown): string[] {
  try {
    parseOrThrow(schema, input, 'CapabilityContract');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.causes.map((cause) => cause.field);
  }
}

const SPEC = {
  id: 'acme.crm_lookup.v2',
  title: 'CRM lookup',
  description: 'Looks a customer up in the CRM.',
  requestSchema: { type: 'object', properties: { email: { type: 'string' } } },
  evidenceSchema: { type: 'object', properties: { record_hash: { type: 'string' } } },
  sideEffects: 'read',
};

const contract = (spec: Record<string, unknown> = {}, name = 'acme.crm_lookup.v2') => ({
  apiVersion: API_VERSION,
  kind: 'CapabilityContract',
  metadata: {
    name,
    uid: '11111111-0000-4000-8000-000000000000',
    generation: 1,
    resourceVersion: '1',
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec: { ...SPEC, ...spec },
});

describe('ContractId', () => {
  it.each([...CAPABILITY_CONTRACT_IDS, 'acme.crm_lookup.v2', 'acme.tools.search.v10', 'a.b.v0'])(
    'accepts %j',
    (id) => {
      expect(ContractId.safeParse(id).success).toBe(true);
    },
  );

  it.each([
    '',
    'web_search',
    'wardwright.web_search',
    'wardwright.web_search.v',
    'wardwright.web_search.1',
    'Wardwright.web_search.v1',
    'wardwright.web-search.v1',
    'wardwright..v1',
    'wardwright.web_search.v1.',
  ])('rejects %j', (id) => {
    expect(ContractId.safeParse(id).success).toBe(false);
  });
});

describe('CapabilityContract', () => {
  it('accepts a custom contract', () => {
    expect(failingFields(CapabilityContract, contract())).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ id: 'crm_lookup' }, 'spec.id'],
    [{ id: 42 }, 'spec.id'],
    [{ title: '' }, 'spec.title'],
    [{ description: undefined }, 'spec.description'],
    [{ requestSchema: 'object' }, 'spec.requestSchema'],
    [{ requestSchema: { type: 'array', items: {} } }, 'spec.requestSchema.type'],
    [{ requestSchema: { properties: {} } }, 'spec.requestSchema.type'],
    [{ evidenceSchema: { type: 'string' } }, 'spec.evidenceSchema.type'],
    [{ evidenceSchema: { type: 'object', default: () => 1 } }, 'spec.evidenceSchema.default'],
    [{ sideEffects: 'delete' }, 'spec.sideEffects'],
    [{ sideEffects: undefined }, 'spec.sideEffects'],
    [{ version: 2 }, 'spec'],
  ])('rejects %j at %s', (spec, field) => {
    expect(failingFields(CapabilityContract, contract(spec))).toEqual([field]);
  });

  it('requires metadata.name to be the contract id', () => {
    expect(failingFields(CapabilityContract, contract({}, 'crm-lookup'))).toEqual(['spec.id']);
    const input = { ...contract({}, 'crm-lookup'), metadata: { name: 'crm-lookup' } };
    expect(failingFields(CapabilityContractInput, input)).toEqual(['spec.id']);
  });

  it('keeps the JSON Schemas as given', () => {
    const parsed = parseOrThrow(CapabilityContract, contract(), 'CapabilityContract');
    expect(parsed.spec.requestSchema).toEqual(SPEC.requestSchema);
  });
});
