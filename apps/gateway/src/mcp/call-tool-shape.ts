import type { JsonObject } from '@toolgate/core';

/**
 * The two SDK schemas a lean `tools/call` pays for twice per call — `CallToolRequestSchema` on
 * the agent's request, `CallToolResultSchema` on the upstream's result — checked by hand for the
 * shapes nearly every call has, so zod runs only for the rest (bench/mcp/README.md: zod was
 * ~5 % of the gateway's CPU per call). Each check accepts a strict subset of what the schema
 * accepts, and answers exactly what the schema's `parse` would (`call-tool-shape.test.ts` holds
 * both to that on generated values); anything else is undefined, and the caller asks zod.
 */

/** `CallToolRequestSchema.parse(message)` for a plain request, else undefined. */
export function plainCallToolRequest(message: {
  method: string;
  params?: unknown;
}): { method: 'tools/call'; params: JsonObject } | undefined {
  if (message.method !== 'tools/call') return undefined;
  const params = message.params;
  if (!isPlainObject(params)) return undefined;
  let keys = 0;
  if (typeof params.name !== 'string') return undefined;
  keys++;
  if (params.arguments !== undefined) {
    if (!isPlainObject(params.arguments) || hasProtoKey(params.arguments)) return undefined;
    keys++;
  }
  if (params._meta !== undefined) {
    if (!isPlainProgressMeta(params._meta)) return undefined;
    keys++;
  }
  // Any other member (zod strips it, or checks it: `task`) is zod's.
  if (Object.keys(params).length !== keys) return undefined;
  // Members in the schema's order, as zod writes them.
  const out: JsonObject = {};
  if (params._meta !== undefined) out._meta = { ...(params._meta as JsonObject) };
  out.name = params.name;
  if (params.arguments !== undefined) out.arguments = { ...(params.arguments as JsonObject) };
  return { method: 'tools/call', params: out };
}

/** `CallToolResultSchema.parse(value)` for a result of text blocks, else undefined. */
export function plainCallToolResult(value: unknown): JsonObject | undefined {
  if (!isPlainObject(value) || hasProtoKey(value)) return undefined;
  const { content, structuredContent, isError, _meta } = value;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
      return undefined;
    }
    // Other members (annotations, _meta, or any zod would strip) are zod's.
    if (Object.keys(block).length !== 2) return undefined;
  }
  if (structuredContent !== undefined) {
    if (!isPlainObject(structuredContent) || hasProtoKey(structuredContent)) return undefined;
  }
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  if (_meta !== undefined) return undefined;
  // The schema copies what it checks, its own members first and then the rest in their order:
  // so does this, one level down, as zod does.
  const out: JsonObject = {
    content: content.map((block) => ({ type: 'text', text: block.text as string })),
  };
  if (structuredContent !== undefined) {
    out.structuredContent = { ...(structuredContent as JsonObject) };
  }
  if (isError !== undefined) out.isError = isError;
  for (const key of Object.keys(value)) {
    if (!RESULT_MEMBERS.has(key)) out[key] = value[key] as JsonObject[string];
  }
  return out;
}

const RESULT_MEMBERS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/** `_meta` holding only a progress token (a string or a safe integer). */
function isPlainProgressMeta(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  const keys = Object.keys(meta);
  if (keys.length !== 1 || keys[0] !== 'progressToken') return false;
  const token = meta.progressToken;
  return typeof token === 'string' || Number.isSafeInteger(token);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * An own `__proto__` member (JSON.parse makes one): zod's copy assigns it, which sets the
 * copy's prototype instead, so such a value is left to zod to answer as it does.
 */
function hasProtoKey(value: object): boolean {
  return Object.hasOwn(value, '__proto__');
}
