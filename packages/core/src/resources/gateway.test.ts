import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../validate.ts';
import { API_VERSION, findCondition } from './envelope.ts';
import { Gateway, GatewayInput, SYNCED_CONDITION } from './gateway.ts';

function failingFields(schema: z.ZodType, input: unknown): string[] {
  try {
    parseOrThrow(schema, input, 'Gateway');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.causes.map((cause) => cause.field);
  }
}

const synced = {
  type: 'Synced',
  status: 'True',
  reason: 'BundleApplied',
  message: '',
  lastTransitionTime: '2026-03-01T12:00:00Z',
  observedGeneration: 2,
};
const nack = {
  ...synced,
  status: 'False',
  reason: 'BundleRejected',
  message: 'spec.rules[2].match.name: invalid regular expression',
};
const STATUS = {
  observedGeneration: 2,
  appliedBundleETag: '"b-7f3a9c"',
  conditions: [synced],
  lastSyncTime: '2026-03-01T12:00:05.250Z',
  spoolDepth: 0,
  version: '0.1.0',
};

const gateway = (
  spec: Record<string, unknown> = { identity: 'gw-eu-1' },
  status?: Record<string, unknown>,
) => ({
  apiVersion: API_VERSION,
  kind: 'Gateway',
  metadata: {
    name: 'gw-eu-1',
    uid: '0a9d7c6b-0000-4000-8000-000000000003',
    labels: { region: 'eu', env: 'prod' },
    generation: 2,
    resourceVersion: '42',
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec,
  ...(status ? { status } : {}),
});

describe('Gateway', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>?]>([
    ['just registered, no status yet', { identity: 'gw-eu-1' }],
    ['with a description', { identity: 'gw-eu-1', description: 'Frankfurt edge' }],
    ['synced', { identity: 'gw-eu-1' }, STATUS],
    [
      'NACKing a bundle',
      { identity: 'gw-eu-1' },
      { ...STATUS, conditions: [nack], spoolDepth: 1200 },
    ],
    ['with only conditions', { identity: 'gw-eu-1' }, { conditions: [] }],
  ])('accepts a gateway %s', (_name, spec, status) => {
    expect(failingFields(Gateway, gateway(spec, status))).toEqual([]);
  });

  it.each<[Record<string, unknown>, Record<string, unknown> | undefined, string]>([
    [{}, undefined, 'spec.identity'],
    [{ identity: 'GW_EU' }, undefined, 'spec.identity'],
    [{ identity: 'gw-eu-1', labels: { region: 'eu' } }, undefined, 'spec'],
    [{ identity: 'gw-eu-1' }, { ...STATUS, conditions: undefined }, 'status.conditions'],
    [{ identity: 'gw-eu-1' }, { ...STATUS, spoolDepth: -1 }, 'status.spoolDepth'],
    [{ identity: 'gw-eu-1' }, { ...STATUS, spoolDepth: 1.5 }, 'status.spoolDepth'],
    [{ identity: 'gw-eu-1' }, { ...STATUS, lastSyncTime: 'just now' }, 'status.lastSyncTime'],
    [{ identity: 'gw-eu-1' }, { ...STATUS, appliedBundleETag: '' }, 'status.appliedBundleETag'],
    [
      { identity: 'gw-eu-1' },
      { ...STATUS, conditions: [synced, nack] },
      'status.conditions[1].type',
    ],
    [
      { identity: 'gw-eu-1' },
      { ...STATUS, conditions: [{ ...nack, reason: 'bundle rejected' }] },
      'status.conditions[0].reason',
    ],
  ])('rejects spec %j / status %j at %s', (spec, status, field) => {
    expect(failingFields(Gateway, gateway(spec, status))).toEqual([field]);
  });

  it('exposes the Synced condition and its NACK message', () => {
    const parsed = parseOrThrow(
      Gateway,
      gateway(undefined, { ...STATUS, conditions: [nack] }),
      'Gateway',
    );
    const condition = findCondition(parsed.status?.conditions, SYNCED_CONDITION);
    expect(condition?.status).toBe('False');
    expect(condition?.message).toContain('spec.rules[2]');
  });

  it('keeps labels in metadata, where policy selectors look', () => {
    const parsed = parseOrThrow(Gateway, gateway(), 'Gateway');
    expect(parsed.metadata.labels).toEqual({ region: 'eu', env: 'prod' });
  });

  it('accepts the client-sent form', () => {
    const input = {
      apiVersion: API_VERSION,
      kind: 'Gateway',
      metadata: { name: 'gw-us-1', labels: { region: 'us' } },
      spec: { identity: 'gw-us-1' },
    };
    expect(failingFields(GatewayInput, input)).toEqual([]);
  });
});
