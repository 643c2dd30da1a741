import { GatewayBundle } from '@toolgate/contract';
import {
  type CompiledBundle,
  compileBundle,
  formatFieldPath,
  hashCanonical,
  ValidationError,
} from '@toolgate/core';

/**
 * A bundle the gateway refuses to enforce. The message is what operators read in the NACK
 * (`Gateway.status`), so it names failing fields the Kubernetes way:
 * `policies[0].spec.rules[1].match.name: must not be empty`.
 */
export class BundleRejectedError extends Error {
  constructor(
    /** The ETag the bundle arrived with (empty when it had none). */
    readonly etag: string,
    message: string,
  ) {
    super(message);
    this.name = 'BundleRejectedError';
  }
}

export interface ValidBundle {
  etag: string;
  bundle: GatewayBundle;
  compiled: CompiledBundle;
}

/**
 * Everything a bundle must pass before one request is mediated with it: the wire schema, the
 * gateway it was built for, an ETag that is the canonical hash of exactly this content (a
 * truncated or tampered body, or a proxy that mixed up responses, cannot be enforced), and the
 * engine's own compilation.
 */
export function validateBundle(raw: unknown, etag: string, gateway?: string): ValidBundle {
  const parsed = GatewayBundle.safeParse(raw);
  if (!parsed.success) {
    const causes = parsed.error.issues.map((i) => `${formatFieldPath(i.path)}: ${i.message}`);
    throw new BundleRejectedError(etag, causes.join('; '));
  }
  const bundle = parsed.data;
  if (gateway !== undefined && bundle.gateway !== gateway) {
    throw new BundleRejectedError(
      etag,
      `gateway: is "${bundle.gateway}", but this gateway is "${gateway}"`,
    );
  }
  let actual: string;
  try {
    // The content as received, not as parsed: zod defaults would change the hash.
    actual = hashCanonical(raw);
  } catch (error) {
    throw new BundleRejectedError(etag, `(root): cannot be hashed: ${(error as Error).message}`);
  }
  if (actual !== etag) {
    throw new BundleRejectedError(
      etag,
      `ETag "${etag}" does not match the bundle's content hash "${actual}"`,
    );
  }
  let compiled: CompiledBundle;
  try {
    compiled = compileBundle({
      etag,
      policies: bundle.policies,
      profiles: bundle.profiles,
      ...(bundle.hostedTools ? { hostedTools: bundle.hostedTools } : {}),
    });
  } catch (error) {
    if (error instanceof ValidationError) {
      const causes = error.causes.map((c) => `${c.field}: ${c.message}`);
      throw new BundleRejectedError(etag, causes.join('; '));
    }
    throw new BundleRejectedError(etag, `cannot compile: ${(error as Error).message}`);
  }
  return { etag, bundle, compiled };
}
