import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../validate.ts';
import { API_VERSION } from './envelope.ts';
import { Identity, IdentityInput, Role } from './identity.ts';

function failingFields(schema: z.ZodType, input: unknown): string[] {
  try {
    parseOrThrow(schema, input, 'Identity');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.causes.map((cause) => cause.field);
  }
}

const identity = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'Identity',
  metadata: {
    name: 'alice',
    uid: 'b3f0c1de-0000-4000-8000-00000000000a',
    generation: 1,
    resourceVersion: '1',
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec,
  ...(status ? { status } : {}),
});

describe('Identity', () => {
  it('has the four roles of the spec', () => {
    expect(Role.options).toEqual(['operator', 'auditor', 'gateway', 'agent']);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>?]>([
    ['an operator', { type: 'human', roles: ['operator'] }],
    ['an operator who also audits', { type: 'human', roles: ['operator', 'auditor'] }],
    ['a human behind an agent', { type: 'human', roles: ['agent'], displayName: 'Alice' }],
    ['a gateway service', { type: 'service', roles: ['gateway'], description: 'eu-1 fleet' }],
    ['a service agent', { type: 'service', roles: ['agent'] }],
    [
      'with status',
      { type: 'service', roles: ['agent'] },
      {
        observedGeneration: 1,
        tokens: { active: 2, lastUsedTime: '2026-02-01T10:00:00Z' },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'TokensActive',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    ],
  ])('accepts %s', (_name, spec, status) => {
    expect(failingFields(Identity, identity(spec, status))).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ type: 'robot', roles: ['agent'] }, 'spec.type'],
    [{ roles: ['agent'] }, 'spec.type'],
    [{ type: 'human' }, 'spec.roles'],
    [{ type: 'human', roles: [] }, 'spec.roles'],
    [{ type: 'human', roles: 'operator' }, 'spec.roles'],
    [{ type: 'human', roles: ['admin'] }, 'spec.roles[0]'],
    [{ type: 'human', roles: ['operator', 'operator'] }, 'spec.roles[1]'],
    [{ type: 'human', roles: ['auditor', 'agent', 'auditor'] }, 'spec.roles[2]'],
    [{ type: 'human', roles: ['operator', 'gateway'] }, 'spec.roles[1]'],
    [{ type: 'human', roles: ['agent'], displayName: '' }, 'spec.displayName'],
    [{ type: 'human', roles: ['agent'], description: 'x'.repeat(1025) }, 'spec.description'],
    [{ type: 'human', roles: ['agent'], token: 'secret' }, 'spec'],
  ])('rejects %j at %s', (spec, field) => {
    expect(failingFields(Identity, identity(spec))).toEqual([field]);
  });

  it('says why a human cannot be a gateway', () => {
    const result = Identity.safeParse(identity({ type: 'human', roles: ['gateway'] }));
    expect(result.error?.issues[0]?.message).toBe('the gateway role requires type "service"');
  });

  it('rejects a negative token count at status.tokens.active', () => {
    const input = identity({ type: 'service', roles: ['agent'] }, { tokens: { active: -1 } });
    expect(failingFields(Identity, input)).toEqual(['status.tokens.active']);
  });

  it('accepts the client-sent form with a bare name', () => {
    const input = {
      apiVersion: API_VERSION,
      kind: 'Identity',
      metadata: { name: 'ci-bot', labels: { team: 'platform' } },
      spec: { type: 'service', roles: ['agent'] },
    };
    expect(failingFields(IdentityInput, input)).toEqual([]);
    expect(failingFields(IdentityInput, { ...input, kind: 'Gateway' })).toEqual(['kind']);
  });
});
