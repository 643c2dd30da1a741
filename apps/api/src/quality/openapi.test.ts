import { ROUTES, type RouteDef } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: unknown;
  summary?: unknown;
  tags?: unknown;
  parameters?: Array<{ name?: unknown; in?: unknown; required?: unknown; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<
    string,
    { description?: unknown; content?: Record<string, { schema?: unknown }> }
  >;
  security?: unknown;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ROUTE_ENTRIES = Object.entries(ROUTES) as Array<[string, RouteDef]>;

let api: TestApi;
let doc: Json;
beforeAll(async () => {
  api = await startTestApi();
  const response = await api.fetch('/docs/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await response.json()) as Json;
});
afterAll(() => api?.close());

const paths = () => doc.paths as Record<string, Record<string, Operation>>;
const operations = () =>
  Object.entries(paths()).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );

/** Every `$ref` in the document, wherever it is. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}

/** A JSON Schema (2020-12) is an object or a boolean; its keywords have the right shapes. */
function schemaProblems(schema: unknown, at: string): string[] {
  if (typeof schema === 'boolean') return [];
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    return [`${at}: not a schema`];
  const s = schema as Json;
  const problems: string[] = [];
  const types = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];
  for (const type of [s.type].flat()) {
    if (type !== undefined && !types.includes(type as string)) problems.push(`${at}.type: ${type}`);
  }
  if (
    s.required !== undefined &&
    !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))
  ) {
    problems.push(`${at}.required: not a list of names`);
  }
  for (const key of ['properties', '$defs', 'patternProperties']) {
    for (const [name, sub] of Object.entries((s[key] as Json | undefined) ?? {})) {
      problems.push(...schemaProblems(sub, `${at}.${key}.${name}`));
    }
  }
  for (const key of ['items', 'additionalProperties', 'not', 'propertyNames', 'contains']) {
    if (s[key] !== undefined) problems.push(...schemaProblems(s[key], `${at}.${key}`));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    if (s[key] === undefined) continue;
    if (!Array.isArray(s[key])) problems.push(`${at}.${key}: not a list`);
    else {
      for (const [i, sub] of (s[key] as unknown[]).entries()) {
        problems.push(...schemaProblems(sub, `${at}.${key}[${i}]`));
      }
    }
  }
  return problems;
}

describe('GET /docs/openapi.json', () => {
  it('is an OpenAPI 3.1 document with info, security and paths', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.components).toMatchObject({
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Status: expect.any(Object) },
    });
    expect(doc.security).toEqual([{ bearer: [] }]);
    for (const path of Object.keys(paths())) expect(path).toMatch(/^\//);
    for (const name of Object.keys((doc.components as Json).schemas as Json)) {
      expect(name).toMatch(/^[a-zA-Z0-9.\-_]+$/);
    }
  });

  it('has every contract route, under its name as operationId, and nothing else', () => {
    const documented = operations().map(
      ({ path, method, op }) => `${op.operationId} ${method.toUpperCase()} ${path}`,
    );
    const expected = ROUTE_ENTRIES.map(([name, def]) => `${name} ${def.method} ${def.path}`);
    expect(documented.sort()).toEqual(expected.sort());
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every path parameter, required, and no phantom ones', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
      for (const name of inPath) {
        const param = declared.find((p) => p.name === name);
        if (!param) problems.push(`${method} ${path}: {${name}} not declared`);
        else if (param.required !== true)
          problems.push(`${method} ${path}: {${name}} not required`);
      }
      for (const param of declared) {
        if (!inPath.includes(param.name as string))
          problems.push(`${method} ${path}: ${String(param.name)} is not in the path`);
      }
      for (const param of op.parameters ?? []) {
        if (!['path', 'query', 'header', 'cookie'].includes(param.in as string))
          problems.push(`${method} ${path}: ${String(param.name)} in ${String(param.in)}`);
        problems.push(...schemaProblems(param.schema, `${method} ${path} ${String(param.name)}`));
      }
      const names = (op.parameters ?? []).map((p) => `${String(p.in)}:${String(p.name)}`);
      if (new Set(names).size !== names.length)
        problems.push(`${method} ${path}: duplicate parameters`);
    }
    expect(problems).toEqual([]);
  });

  it('documents bodies, responses, tags and access with well-formed JSON Schemas', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      const def = ROUTES[op.operationId as keyof typeof ROUTES] as RouteDef;
      if (typeof op.summary !== 'string' || op.summary === '')
        problems.push(`${where}: no summary`);
      if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push(`${where}: no tag`);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (Boolean(def.body) !== (body !== undefined))
        problems.push(`${where}: request body mismatch`);
      if (body !== undefined) problems.push(...schemaProblems(body, `${where} body`));
      const responses = op.responses ?? {};
      const success = String(def.successCode ?? 200);
      if (!responses[success]) problems.push(`${where}: no ${success} response`);
      for (const [code, response] of Object.entries(responses)) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(code))
          problems.push(`${where}: response key ${code}`);
        if (typeof response.description !== 'string')
          problems.push(`${where} ${code}: no description`);
        const schema = response.content?.['application/json']?.schema;
        if (schema !== undefined) problems.push(...schemaProblems(schema, `${where} ${code}`));
      }
      // Anonymous routes opt out of the document-wide bearer requirement.
      const anonymous = 'anonymous' in def.access;
      if (anonymous !== (Array.isArray(op.security) && op.security.length === 0))
        problems.push(`${where}: security does not match access`);
    }
    expect(problems).toEqual([]);
  });

  it('resolves every $ref inside the document', () => {
    const unresolved = refsIn(doc).filter((ref) => {
      if (!ref.startsWith('#/')) return false; // schemas may carry their own $id-relative refs
      let node: unknown = doc;
      for (const part of ref.slice(2).split('/')) {
        const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
        node = node && typeof node === 'object' ? (node as Json)[key] : undefined;
      }
      return node === undefined;
    });
    expect(unresolved).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('serves an HTML page, anonymously, with the security headers', async () => {
    const response = await api.fetch('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/^<!doctype html>/i);
    for (const header of [
      'x-content-type-options',
      'x-frame-options',
      'referrer-policy',
      'content-security-policy',
    ]) {
      expect(response.headers.get(header), header).toBeTruthy();
    }
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is the same page with a trailing slash, as is every route, access rules included', async () => {
    const page = await api.fetch('/docs/');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(await (await api.fetch('/docs')).text());
    expect((await api.fetch('/docs/openapi.json/')).status).toBe(200);
    const list = '/apis/toolgate.dev/v1/mediationpolicies/';
    expect((await api.fetch(list)).status).toBe(401);
    const listed = await api.fetch(list, { token: api.operatorToken });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ kind: 'MediationPolicyList' });
  });

  it('needs no token for the document either, and ignores a bad one', async () => {
    const response = await api.fetch('/docs/openapi.json', { token: 'tg_not-a-token' });
    expect(response.status).toBe(200);
  });
});
