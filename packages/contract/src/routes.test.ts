import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';
import { buildPath } from './route.ts';
import { ROUTES } from './routes/index.ts';

describe('the route table', () => {
  const entries = Object.entries(ROUTES);

  it('has one route per method and path, each with an access rule', () => {
    const keys = entries.map(([, def]) => `${def.method} ${def.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const [name, def] of entries) {
      const ok = 'anonymous' in def.access || def.access.roles.length > 0;
      expect(ok, name).toBe(true);
    }
  });

  it('declares every path placeholder as a parameter', () => {
    for (const [name, def] of entries) {
      const placeholders = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = def.params ? Object.keys((def.params as { shape: object }).shape) : [];
      expect(declared.sort(), name).toEqual(placeholders.sort());
    }
  });

  it('builds paths with encoded parameters', () => {
    expect(buildPath('/a/{name}/b', { name: 'x y/z' })).toBe('/a/x%20y%2Fz/b');
    expect(() => buildPath('/a/{name}', {})).toThrow('missing path parameter "name"');
  });
});

describe('the OpenAPI document', () => {
  it('covers every route, with request and response schemas', () => {
    const doc = buildOpenApiDocument();
    const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const [name, def] of Object.entries(ROUTES)) {
      const op = paths[def.path]?.[def.method.toLowerCase()];
      expect(op?.operationId, name).toBe(name);
      if (def.body) expect(op?.requestBody, name).toBeDefined();
    }
    const create = paths['/apis/toolgate.dev/v1/mediationpolicies']?.post;
    expect(JSON.stringify(create?.requestBody)).toContain('description_append');
    expect(JSON.stringify(doc)).toContain('"Status"');
  });
});
