import { describe, expect, it } from 'vitest';
import {
  contractForNativeType,
  fidelityFor,
  ProviderProfile,
} from '../resources/provider-profile.ts';
import type { Fidelity } from '../resources/vocabulary.ts';
import { CAPABILITY_CONTRACT_IDS } from '../resources/vocabulary.ts';
import { parseOrThrow } from '../validate.ts';
import { SEED_CAPABILITY_CONTRACTS, SEED_LABEL, seedUid } from './capability-contracts.ts';
import { GEMINI_PROFILE } from './gemini-profile.ts';
import { OPENAI_RESPONSES_PROFILE } from './openai-responses-profile.ts';
import {
  ANTHROPIC_MESSAGES_PROFILE,
  OPENAI_CHAT_PROFILE,
  SEED_PROVIDER_PROFILES,
} from './provider-profiles.ts';

const SEEDED_CONTRACT_IDS = new Set(SEED_CAPABILITY_CONTRACTS.map((c) => c.spec.id));
const profiles = SEED_PROVIDER_PROFILES.map((p) => [p.metadata.name, p] as const);

function profileNamed(name: string) {
  const profile = SEED_PROVIDER_PROFILES.find((p) => p.metadata.name === name);
  if (!profile) throw new Error(`no seeded profile ${name}`);
  return profile;
}

describe('SEED_PROVIDER_PROFILES', () => {
  it('holds one profile per surface', () => {
    expect(SEED_PROVIDER_PROFILES).toEqual([
      OPENAI_CHAT_PROFILE,
      ANTHROPIC_MESSAGES_PROFILE,
      OPENAI_RESPONSES_PROFILE,
      GEMINI_PROFILE,
    ]);
    expect(SEED_PROVIDER_PROFILES.map((p) => p.spec.surface)).toEqual([
      'openai-chat',
      'anthropic-messages',
      'openai-responses',
      'gemini',
    ]);
  });

  it.each(profiles)('%s parses as a ProviderProfile unchanged', (_name, profile) => {
    expect(parseOrThrow(ProviderProfile, profile, 'ProviderProfile')).toEqual(profile);
  });

  it.each(profiles)('%s is named after its surface, with seed metadata', (name, profile) => {
    expect(profile.spec.surface).toBe(name);
    expect(profile.metadata.uid).toBe(seedUid('ProviderProfile', name));
    expect(profile.metadata.labels).toEqual({ [SEED_LABEL]: 'true' });
    expect(profile.metadata.generation).toBe(1);
  });

  it.each(profiles)('%s references only seeded contracts, each once', (_name, profile) => {
    const contracts = profile.spec.capabilities.map((c) => c.contract);
    for (const contract of contracts) expect(SEEDED_CONTRACT_IDS.has(contract)).toBe(true);
    expect(new Set(contracts).size).toBe(contracts.length);
  });

  it.each(profiles)('%s states a cell for every seeded contract', (_name, profile) => {
    const contracts = profile.spec.capabilities.map((c) => c.contract);
    expect([...contracts].sort()).toEqual([...CAPABILITY_CONTRACT_IDS].sort());
  });

  it.each(profiles)('%s lists each native type under one contract only', (_name, profile) => {
    const nativeTypes = profile.spec.capabilities.flatMap((c) => c.nativeTypes);
    expect(new Set(nativeTypes).size).toBe(nativeTypes.length);
  });

  it.each(profiles)('%s names a gap for everything short of pass-through', (_name, profile) => {
    for (const capability of profile.spec.capabilities) {
      if (capability.fidelity !== 'pass_through') expect(capability.gaps.length).toBeGreaterThan(0);
    }
  });
});

describe('the seeded fidelity matrix', () => {
  it.each<[string, Record<string, Fidelity>]>([
    [
      'openai-chat',
      {
        'wardwright.web_search.v1': 'provider_attested',
        'wardwright.url_fetch.v1': 'opaque',
        'wardwright.file_search.v1': 'opaque',
        'wardwright.code_exec.v1': 'opaque',
        'wardwright.computer_use.v1': 'opaque',
        'wardwright.mcp_tool.v1': 'opaque',
      },
    ],
    [
      'anthropic-messages',
      {
        'wardwright.web_search.v1': 'normalized',
        'wardwright.url_fetch.v1': 'normalized',
        'wardwright.file_search.v1': 'opaque',
        'wardwright.code_exec.v1': 'normalized',
        'wardwright.computer_use.v1': 'pass_through',
        'wardwright.mcp_tool.v1': 'provider_attested',
      },
    ],
    [
      'gemini',
      {
        'wardwright.web_search.v1': 'provider_attested',
        'wardwright.url_fetch.v1': 'provider_attested',
        'wardwright.file_search.v1': 'provider_attested',
        'wardwright.code_exec.v1': 'normalized',
        'wardwright.computer_use.v1': 'opaque',
        'wardwright.mcp_tool.v1': 'opaque',
      },
    ],
    [
      'openai-responses',
      {
        'wardwright.web_search.v1': 'normalized',
        'wardwright.url_fetch.v1': 'opaque',
        'wardwright.file_search.v1': 'normalized',
        'wardwright.code_exec.v1': 'normalized',
        'wardwright.computer_use.v1': 'pass_through',
        'wardwright.mcp_tool.v1': 'provider_attested',
      },
    ],
  ])('%s', (name, expected) => {
    const profile = profileNamed(name);
    const actual = Object.fromEntries(
      CAPABILITY_CONTRACT_IDS.map((id) => [id, fidelityFor(profile.spec, id)]),
    );
    expect(actual).toEqual(expected);
  });

  it('claims for Gemini only what its wire format carries', () => {
    const claim = (contract: string) =>
      GEMINI_PROFILE.spec.capabilities.find((c) => c.contract === contract);
    // Each offered cell cites the documented field names its evidence is read from.
    expect(claim('wardwright.web_search.v1')?.eventShape).toMatch(
      /groundingMetadata.*webSearchQueries.*groundingChunks.*groundingSupports/s,
    );
    expect(claim('wardwright.url_fetch.v1')?.eventShape).toMatch(
      /urlContextMetadata.*urlMetadata.*retrievedUrl.*urlRetrievalStatus/s,
    );
    expect(claim('wardwright.code_exec.v1')?.eventShape).toMatch(
      /executableCode.*codeExecutionResult.*outcome/s,
    );
    // Search returns queries but not results: weaker than Anthropic's full result list.
    expect(fidelityFor(GEMINI_PROFILE.spec, 'wardwright.web_search.v1')).not.toBe(
      fidelityFor(ANTHROPIC_MESSAGES_PROFILE.spec, 'wardwright.web_search.v1'),
    );
  });

  it('proves more of OpenAI’s hosted tools on Responses than Chat Completions can express', () => {
    const better = CAPABILITY_CONTRACT_IDS.filter(
      (id) =>
        fidelityFor(OPENAI_RESPONSES_PROFILE.spec, id) !==
        fidelityFor(OPENAI_CHAT_PROFILE.spec, id),
    );
    expect(better).toEqual([
      'wardwright.web_search.v1',
      'wardwright.file_search.v1',
      'wardwright.code_exec.v1',
      'wardwright.computer_use.v1',
      'wardwright.mcp_tool.v1',
    ]);
  });

  it('does not claim parity for web search just because both providers have it', () => {
    const openai = fidelityFor(OPENAI_CHAT_PROFILE.spec, 'wardwright.web_search.v1');
    const anthropic = fidelityFor(ANTHROPIC_MESSAGES_PROFILE.spec, 'wardwright.web_search.v1');
    expect(openai).not.toBe(anthropic);
  });

  it.each<[string, string, string | undefined]>([
    ['openai-chat', 'web_search_options', 'wardwright.web_search.v1'],
    ['openai-chat', 'function', undefined],
    ['openai-chat', 'web_search_20250305', undefined],
    ['anthropic-messages', 'web_search_20250305', 'wardwright.web_search.v1'],
    ['anthropic-messages', 'web_search_20260209', 'wardwright.web_search.v1'],
    ['anthropic-messages', 'web_fetch_20250910', 'wardwright.url_fetch.v1'],
    ['anthropic-messages', 'code_execution_20250522', 'wardwright.code_exec.v1'],
    ['anthropic-messages', 'code_execution_20250825', 'wardwright.code_exec.v1'],
    ['anthropic-messages', 'computer_20241022', 'wardwright.computer_use.v1'],
    ['anthropic-messages', 'computer_20250124', 'wardwright.computer_use.v1'],
    ['anthropic-messages', 'mcp_toolset', 'wardwright.mcp_tool.v1'],
    ['anthropic-messages', 'bash_20250124', undefined],
    ['anthropic-messages', 'web_search_options', undefined],
    ['gemini', 'googleSearch', 'wardwright.web_search.v1'],
    ['gemini', 'googleSearchRetrieval', 'wardwright.web_search.v1'],
    ['gemini', 'urlContext', 'wardwright.url_fetch.v1'],
    ['gemini', 'codeExecution', 'wardwright.code_exec.v1'],
    ['gemini', 'fileSearch', 'wardwright.file_search.v1'],
    ['gemini', 'functionDeclarations', undefined],
    ['openai-responses', 'web_search', 'wardwright.web_search.v1'],
    ['openai-responses', 'web_search_preview_2025_03_11', 'wardwright.web_search.v1'],
    ['openai-responses', 'file_search', 'wardwright.file_search.v1'],
    ['openai-responses', 'code_interpreter', 'wardwright.code_exec.v1'],
    ['openai-responses', 'computer_use_preview', 'wardwright.computer_use.v1'],
    ['openai-responses', 'mcp', 'wardwright.mcp_tool.v1'],
    ['openai-responses', 'web_search_options', undefined],
    ['openai-responses', 'local_shell', undefined],
  ])('%s maps native type %s to %s', (name, nativeType, contract) => {
    expect(contractForNativeType(profileNamed(name).spec, nativeType)).toBe(contract);
  });
});
