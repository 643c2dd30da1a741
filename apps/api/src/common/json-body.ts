import { decodeUtf8Strictly, illFormedPathInJson, invalidUtf8Message } from '@toolgate/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StatusError } from './api-errors.ts';

/**
 * Bodies nested deeper than this are refused as they are parsed (before the lone-surrogate walk
 * and validation): recursive validation, cloning and hashing overflow the stack (a 500) at a few
 * thousand levels; no real document comes close.
 */
export const MAX_BODY_DEPTH = 256;

/**
 * The API's only request body parser: JSON in UTF-8, refused unless it can be stored exactly as
 * sent. Fastify's own would decode invalid UTF-8 to U+FFFD (a policy matching `x\ufffd` stored
 * and shipped to every gateway) and pass lone surrogates (`"\ud800"`) on to PostgreSQL, whose
 * jsonb rejects them mid-write (a 500). Here both are a 400 before any handler runs: invalid
 * bytes with their offset, a lone surrogate with the field (value or key) that holds it. This is
 * the same check the gateway makes on agent requests (`decodeUtf8Strictly`, `illFormedPath`).
 *
 * An empty body is no body, whatever the method: many HTTP clients send
 * `Content-Type: application/json` on every request, DELETE and GET included. A route that needs
 * a body says so itself (`SchemaValidationPipe`). Other media types are 415 (answered as 400).
 */
export function acceptOnlyJsonBodies(fastify: FastifyInstance, bodyLimit: number): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit },
    (
      request: FastifyRequest,
      bytes: Buffer,
      done: (error: Error | null, body?: unknown) => void,
    ) => {
      if (bytes.length === 0) return done(null, undefined);
      const charset = charsetOf(request.headers['content-type']);
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        return done(
          StatusError.of(
            'BadRequest',
            `unsupported charset "${charset.slice(0, 40)}": send JSON in UTF-8`,
          ),
        );
      }
      const decoded = decodeUtf8Strictly(bytes);
      if (!decoded.ok)
        return done(StatusError.of('BadRequest', invalidUtf8Message(decoded.offset)));
      parseJson(request, decoded.text, (error, parsed) => {
        if (error) return done(error);
        if (nestsDeeperThan(parsed, MAX_BODY_DEPTH)) {
          return done(
            StatusError.of('BadRequest', `request body nests deeper than ${MAX_BODY_DEPTH} levels`),
          );
        }
        const field = illFormedPathInJson(decoded.text, parsed);
        if (field === undefined) return done(null, parsed);
        const message = 'holds a lone UTF-16 surrogate (\\ud800–\\udfff without its pair)';
        done(
          StatusError.of('BadRequest', `request body: ${field} ${message}`, [{ field, message }]),
        );
      });
    },
  );
}

/** The `charset` parameter of a Content-Type, lower-cased and unquoted, if there is one. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match ? (match[1] as string).toLowerCase() : undefined;
}

/**
 * Iterative, so that a body nested a million levels deep cannot overflow the stack here. Only
 * objects and arrays are queued (a receipt batch has some 100,000 values, most of them leaves),
 * and their children are read in place, not copied out (`Object.values`) first: a batch has some
 * 60,000 containers.
 */
function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nodes: object[] = [value];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= max) return true;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    // Parsed JSON: plain objects, own enumerable keys only (`Object.values`' set).
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const child: unknown = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
