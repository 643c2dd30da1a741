import { Role } from '@toolgate/core';
import { z } from 'zod';
import { OPERATOR_ONLY, READERS, route } from '../route.ts';
import { API_PREFIX, NameParams } from './resources.ts';

const TOKENS = `${API_PREFIX}/identities/{name}/tokens`;

/** A token as listed: never the secret. */
export const TokenSummary = z.object({
  id: z.string(),
  identity: z.string(),
  description: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type TokenSummary = z.infer<typeof TokenSummary>;

export const identityRouteTable = {
  issueToken: route({
    method: 'POST',
    path: TOKENS,
    tag: 'Identity',
    summary: 'Issue an API token; the secret is in this response only',
    access: OPERATOR_ONLY,
    params: NameParams,
    body: z
      .object({
        description: z.string().max(256).optional(),
        /** Lifetime in seconds; no expiry when absent. */
        ttlSeconds: z
          .number()
          .int()
          .min(60)
          .max(10 * 365 * 24 * 3600)
          .optional(),
      })
      .strict(),
    response: TokenSummary.extend({ token: z.string() }),
    successCode: 201,
  }),
  listTokens: route({
    method: 'GET',
    path: TOKENS,
    tag: 'Identity',
    summary: "List an identity's tokens (metadata only)",
    access: READERS,
    params: NameParams,
    response: z.object({ items: z.array(TokenSummary) }),
  }),
  revokeToken: route({
    method: 'DELETE',
    path: `${TOKENS}/{tokenId}`,
    tag: 'Identity',
    summary: 'Revoke a token; it stops working at once',
    access: OPERATOR_ONLY,
    params: NameParams.extend({ tokenId: z.string().min(1).max(64) }),
    response: TokenSummary,
  }),
  whoami: route({
    method: 'GET',
    path: `${API_PREFIX}/whoami`,
    tag: 'Identity',
    summary: 'Who the presented token belongs to',
    access: { roles: ['operator', 'auditor', 'gateway', 'agent'] },
    response: z.object({ identity: z.string(), type: z.string(), roles: z.array(Role) }),
  }),
};
