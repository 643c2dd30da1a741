import { createHash, randomBytes } from 'node:crypto';

/** `tg_` + 43 base64url characters (256 random bits): recognisable in leaks, scrubbed by core. */
export function newTokenSecret(): string {
  return `tg_${randomBytes(32).toString('base64url')}`;
}

export function newTokenId(): string {
  return `tok_${randomBytes(8).toString('hex')}`;
}

/** Tokens are 256-bit random: a plain sha256 is enough to store them safely. */
export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
