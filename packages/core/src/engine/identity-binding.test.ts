import { describe, expect, it } from 'vitest';
import { sha256Hex } from '#sha256';
import { ReceiptIdentity } from '../receipt/receipt-schema.ts';
import {
  type BindableIdentity,
  bindIdentity,
  type IdentityPolicy,
  identityByToken,
} from './identity-binding.ts';
import { mediateRequest } from './mediate-request.ts';
import { bundleOf, openAIRequest, openAITool, openAIToolNames } from './test-fixtures.ts';

const identities = [
  { name: 'alice', type: 'human' as const, roles: ['agent'] },
  { name: 'ci-bot', type: 'service' as const, roles: ['agent'] },
  { name: 'root', type: 'human' as const, roles: ['operator'] },
];
const open: IdentityPolicy = { unknownIdentities: 'unverified', headerClaims: 'untrusted' };
const reject: IdentityPolicy = { unknownIdentities: 'reject', headerClaims: 'untrusted' };
const trusting: IdentityPolicy = { unknownIdentities: 'reject', headerClaims: 'trusted' };

describe('bindIdentity from headers alone', () => {
  it.each([
    // Known agent names are claimed, never verified: a header proves nothing.
    [{ human: 'alice' }, open, 'claimed'],
    [{ service: 'ci-bot', session: 's' }, open, 'claimed'],
    [{ human: 'alice', service: 'ci-bot' }, open, 'claimed'],
    [{ human: 'mallory' }, open, 'unverified'],
    [{ human: 'root' }, open, 'unverified'], // not an agent identity
    [{ service: 'alice' }, open, 'unverified'], // wrong type
    [{ human: 'Alice' }, open, 'unverified'], // names are exact
    [{}, open, 'unverified'],
    [{ session: 's' }, open, 'unverified'],
    // `reject` refuses everything not proven, known names included.
    [{ human: 'alice' }, reject, 'rejected'],
    [{ service: 'ci-bot' }, reject, 'rejected'],
    [{ human: 'mallory' }, reject, 'rejected'],
    [{}, reject, 'rejected'],
    // Unless the bundle trusts header claims: then known names pass, as claimed.
    [{ human: 'alice', session: 's' }, trusting, 'claimed'],
    [{ human: 'alice', service: 'nobody' }, trusting, 'rejected'],
    [{ session: 's' }, trusting, 'rejected'],
  ] as const)('%j with %o → %s', (claims, policy, binding) => {
    const bound = bindIdentity(claims, identities, policy);
    expect(bound.receipt).toEqual({ ...claims, binding });
    const trusted = policy.headerClaims === 'trusted' && binding === 'claimed';
    expect(bound.rules).toEqual({
      ...claims,
      trusted: trusted ? ['human', 'service', 'session'] : [],
      binding,
    });
  });
});

describe("bindIdentity by the agent's Toolgate token", () => {
  const now = Date.UTC(2026, 10, 21);
  const later = new Date(now + 60_000).toISOString();
  const earlier = new Date(now - 1).toISOString();
  const withTokens = [
    { ...identities[0], tokens: [{ sha256: sha256Hex('tg_alice'), expiresAt: null }] },
    { ...identities[1], tokens: [{ sha256: sha256Hex('tg_bot'), expiresAt: later }] },
    {
      name: 'old-bot',
      type: 'service' as const,
      roles: ['agent'],
      tokens: [{ sha256: sha256Hex('tg_old'), expiresAt: earlier }],
    },
    { ...identities[2], tokens: [{ sha256: sha256Hex('tg_root'), expiresAt: null }] },
  ] as const;
  const bind = (claims: object, secret: string, policy = reject) =>
    bindIdentity(claims, withTokens as never, policy, { secret, now });

  it.each([
    // A live token proves its owner, with or without headers.
    [{}, 'tg_alice', { human: 'alice', binding: 'verified' }],
    [{ human: 'alice' }, 'tg_alice', { human: 'alice', binding: 'verified' }],
    [{ session: 's1' }, 'tg_bot', { service: 'ci-bot', session: 's1', binding: 'verified' }],
    // The token's identity wins over headers naming someone else; the receipt keeps both.
    [
      { human: 'mallory' },
      'tg_alice',
      { human: 'alice', binding: 'verified', claims: { human: 'mallory' } },
    ],
    [
      { human: 'alice' },
      'tg_bot',
      { service: 'ci-bot', binding: 'verified', claims: { human: 'alice' } },
    ],
    // Expired, unknown, or owned by a non-agent identity: proves nothing, headers or not.
    [{}, 'tg_old', { binding: 'rejected' }],
    [{ human: 'alice' }, 'tg_nobody', { human: 'alice', binding: 'rejected' }],
    [{}, 'tg_root', { binding: 'rejected' }],
  ] as const)('%j with token %s → %j', (claims, secret, expected) => {
    expect(bind(claims, secret).receipt).toEqual(expected);
    expect(ReceiptIdentity.parse(expected)).toEqual(expected);
  });

  it('proves the human and service fields, never the session (unless headers are trusted)', () => {
    expect(bind({ session: 's1' }, 'tg_bot').rules).toEqual({
      service: 'ci-bot',
      session: 's1',
      trusted: ['human', 'service'],
      binding: 'verified',
    });
    expect(bind({ session: 's1' }, 'tg_bot', trusting).rules.trusted).toEqual([
      'human',
      'service',
      'session',
    ]);
  });

  it('an unproven token leaves even known header names unverified, trusted or not', () => {
    expect(bind({ human: 'alice' }, 'tg_nobody', open).receipt).toEqual({
      human: 'alice',
      binding: 'unverified',
    });
    const trustedButBadToken = bind({ human: 'alice' }, 'tg_nobody', trusting);
    expect(trustedButBadToken.receipt.binding).toBe('rejected');
    expect(trustedButBadToken.rules.trusted).toEqual([]);
  });

  it('finds the owner only while the token is live', () => {
    expect(identityByToken({ secret: 'tg_bot', now }, withTokens as never)?.name).toBe('ci-bot');
    expect(
      identityByToken({ secret: 'tg_bot', now: Date.parse(later) }, withTokens as never),
    ).toBeUndefined();
  });

  it("takes the secret's hash when the caller computed it, and looks the token up by it", () => {
    const sha256 = sha256Hex('tg_bot');
    expect(identityByToken({ secret: 'tg_bot', now, sha256 }, withTokens as never)?.name).toBe(
      'ci-bot',
    );
    // The hash is what is looked up: a caller handing a wrong one proves nothing.
    const wrong = sha256Hex('tg_other');
    expect(
      identityByToken({ secret: 'tg_bot', now, sha256: wrong }, withTokens as never),
    ).toBeUndefined();
  });
});

describe('identity-scoped rules against unproven callers', () => {
  const tools = ['deploy', 'search', 'mcp_thing'].map((name) => openAITool(name));
  const rules = [
    {
      id: 'no-deploy',
      action: 'hide',
      match: { name: 'deploy', identity: { human: 'contractor-*' } },
    },
    // A negative regex: hide search from everyone but staff.
    {
      id: 'search-staff-only',
      action: 'hide',
      match: { name: 'search', identity: { human: '/^(?!staff-).*$/' } },
    },
    // A rename for one service only: a claim must not opt into it either.
    {
      id: 'alias-for-bot',
      action: 'rename',
      alias: 'thing',
      match: { name: 'mcp_thing', identity: { service: 'ci-bot' } },
    },
  ] as const;
  const seenBy = (claims: object, policy: IdentityPolicy, token?: string) => {
    const withToken: BindableIdentity[] = [
      {
        name: 'alice',
        type: 'human',
        roles: ['agent'],
        tokens: [{ sha256: sha256Hex('tg_alice'), expiresAt: null }],
      },
      {
        name: 'ci-bot',
        type: 'service',
        roles: ['agent'],
        tokens: [{ sha256: sha256Hex('tg_bot'), expiresAt: null }],
      },
      { name: 'staff-1', type: 'human', roles: ['agent'] },
    ];
    const bundle = bundleOf({ rules: rules as never, headerClaims: policy.headerClaims });
    const bound = bindIdentity(
      claims,
      withToken,
      bundle,
      token === undefined ? undefined : { secret: token, now: 0 },
    );
    const result = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: openAIRequest(tools),
      identity: bound.rules,
    });
    return openAIToolNames(result.body);
  };

  it.each([
    [{}],
    [{ human: 'alice' }],
    [{ human: 'staff-1' }],
    [{ human: 'contractor-7' }],
    [{ human: 'Contractor-7' }],
    [{ service: 'ci-bot' }],
    [{ human: 'alice', session: 'anything' }],
  ])('restrictions apply to header claims %j, and claims unlock nothing', (claims) => {
    expect(seenBy(claims, open)).toEqual(['mcp_thing']);
  });

  it('a token-proven identity is matched on its proven names', () => {
    // alice is no contractor and no staff: deploy stays, search is hidden; no rename for her.
    expect(seenBy({ human: 'contractor-7' }, open, 'tg_alice')).toEqual(['deploy', 'mcp_thing']);
    // ci-bot carries no human: human selectors do not match it; its rename applies.
    expect(seenBy({ human: 'contractor-7' }, open, 'tg_bot')).toEqual([
      'deploy',
      'search',
      'thing',
    ]);
  });

  it('trusted header claims of known identities count like proof; unknown names do not', () => {
    expect(seenBy({ human: 'staff-1' }, trusting)).toEqual(['deploy', 'search', 'mcp_thing']);
    expect(seenBy({ service: 'ci-bot' }, trusting)).toEqual(['deploy', 'search', 'thing']);
    expect(seenBy({ human: 'staff-2' }, trusting)).toEqual(['mcp_thing']);
  });

  it('a bundle trusts header claims only when every policy does', () => {
    const one = { rules: [], headerClaims: 'trusted' as const };
    expect(bundleOf(one).headerClaims).toBe('trusted');
    expect(bundleOf(one, { rules: [] }).headerClaims).toBe('untrusted');
    expect(bundleOf().headerClaims).toBe('untrusted');
    expect(bundleOf(one, { rules: [], unknownIdentities: 'reject' }).unknownIdentities).toBe(
      'reject',
    );
  });
});
