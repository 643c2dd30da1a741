import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../validate.ts';
import { API_VERSION } from './envelope.ts';
import {
  contractForNativeType,
  fidelityFor,
  ProviderProfile,
  ProviderProfileSpec,
} from './provider-profile.ts';

function failingFields(schema: z.ZodType, input: unknown): string[] {
  try {
    parseOrThrow(schema, input, 'ProviderProfile');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.causes.map((cause) => cause.field);
  }
}

const capability = (overrides: Record<string, unknown> = {}) => ({
  contract: 'wardwright.web_search.v1',
  nativeTypes: ['web_search_20250305'],
  fidelity: 'normalized',
  requestSchema: 'tools entry',
  eventShape: 'server_tool_use + web_search_tool_result',
  citations: 'web_search_result_location',
  gaps: ['content encrypted'],
  approval: 'none per call',
  replay: 'not replayable',
  privacy: 'queries visible',
  ...overrides,
});

const profile = (capabilities: unknown[], spec: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'ProviderProfile',
  metadata: {
    name: 'anthropic-messages',
    uid: '22222222-0000-4000-8000-000000000000',
    generation: 3,
    resourceVersion: '9',
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec: { surface: 'anthropic-messages', displayName: 'Anthropic Messages', capabilities, ...spec },
});

describe('ProviderProfile', () => {
  it.each<[string, unknown[]]>([
    ['no capabilities', []],
    ['one capability', [capability()]],
    [
      'an opaque capability with no native type',
      [capability({ contract: 'wardwright.file_search.v1', nativeTypes: [], fidelity: 'opaque' })],
    ],
    [
      'several contracts',
      [
        capability(),
        capability({ contract: 'wardwright.url_fetch.v1', nativeTypes: ['web_fetch_20250910'] }),
      ],
    ],
  ])('accepts %s', (_name, capabilities) => {
    expect(failingFields(ProviderProfile, profile(capabilities))).toEqual([]);
  });

  it.each<[unknown[], string]>([
    [[capability({ fidelity: 'perfect' })], 'spec.capabilities[0].fidelity'],
    [[capability({ nativeTypes: [], fidelity: 'normalized' })], 'spec.capabilities[0].fidelity'],
    [[capability({ contract: 'web_search' })], 'spec.capabilities[0].contract'],
    [[capability({ nativeTypes: [''] })], 'spec.capabilities[0].nativeTypes[0]'],
    [[capability({ gaps: ['ok', ''] })], 'spec.capabilities[0].gaps[1]'],
    [[capability({ replay: undefined })], 'spec.capabilities[0].replay'],
    [[capability({ proofs: [] })], 'spec.capabilities[0]'],
    [
      [capability(), capability({ nativeTypes: ['web_search_20260209'] })],
      'spec.capabilities[1].contract',
    ],
    [
      [
        capability(),
        capability({
          contract: 'wardwright.url_fetch.v1',
          nativeTypes: ['web_fetch_20250910', 'web_search_20250305'],
        }),
      ],
      'spec.capabilities[1].nativeTypes[1]',
    ],
  ])('rejects %j at %s', (capabilities, field) => {
    expect(failingFields(ProviderProfile, profile(capabilities))).toEqual([field]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ surface: 'cohere-chat' }, 'spec.surface'],
    [{ displayName: '' }, 'spec.displayName'],
    [{ capabilities: undefined }, 'spec.capabilities'],
  ])('rejects spec %j at %s', (spec, field) => {
    expect(failingFields(ProviderProfile, profile([], spec))).toEqual([field]);
  });
});

describe('fidelityFor / contractForNativeType', () => {
  const spec = parseOrThrow(
    ProviderProfileSpec,
    {
      surface: 'anthropic-messages',
      displayName: 'Anthropic Messages',
      capabilities: [
        capability(),
        capability({
          contract: 'wardwright.computer_use.v1',
          nativeTypes: ['computer_20250124'],
          fidelity: 'pass_through',
        }),
      ],
    },
    'ProviderProfile',
  );

  it.each([
    ['wardwright.web_search.v1', 'normalized'],
    ['wardwright.computer_use.v1', 'pass_through'],
    ['wardwright.file_search.v1', 'opaque'],
    ['acme.unknown.v1', 'opaque'],
  ])('fidelity of %s is %s', (contract, fidelity) => {
    expect(fidelityFor(spec, contract)).toBe(fidelity);
  });

  it.each([
    ['web_search_20250305', 'wardwright.web_search.v1'],
    ['computer_20250124', 'wardwright.computer_use.v1'],
    ['web_search', undefined],
    ['function', undefined],
  ])('native type %s belongs to %s', (nativeType, contract) => {
    expect(contractForNativeType(spec, nativeType)).toBe(contract);
  });
});
