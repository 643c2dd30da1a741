import { z } from 'zod';
import type { RouteDef } from './route.ts';
import { ROUTES } from './routes/index.ts';
import { Status } from './status.ts';

type JsonSchema = Record<string, unknown>;

/** Named schemas that converted ones refer to: they go to `components.schemas`. */
type Defs = Record<string, JsonSchema>;

/**
 * zod puts the definitions of recursive schemas in the schema's own `$defs`, but OpenAPI resolves
 * `#/$defs/…` against the whole document: they move to `defs`, named after where they came from.
 */
function jsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  defs: Defs,
  owner: string,
): JsonSchema {
  const { $defs, ...converted } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  const rename = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rename);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) =>
        key === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
          ? [key, `#/components/schemas/${owner}.${v.slice('#/$defs/'.length)}`]
          : [key, rename(v)],
      ),
    );
  };
  for (const [name, def] of Object.entries(($defs ?? {}) as Defs)) {
    defs[`${owner}.${name}`] = rename(def) as JsonSchema;
  }
  return rename(converted) as JsonSchema;
}

/** Query and path parameters from an object schema, one OpenAPI parameter per property. */
function parameters(
  schema: z.ZodType | undefined,
  where: 'path' | 'query',
  defs: Defs,
  owner: string,
): JsonSchema[] {
  if (!schema) return [];
  const doc = jsonSchema(schema, 'input', defs, `${owner}.${where}`);
  const properties = (doc.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((doc.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }));
}

function operation(name: string, def: RouteDef, defs: Defs): JsonSchema {
  const access =
    'anonymous' in def.access
      ? 'anonymous'
      : `roles: ${def.access.roles.join(', ')}${def.access.ownGateway ? ' (a gateway: only its own)' : ''}`;
  return {
    operationId: name,
    summary: def.summary,
    description: `Access — ${access}.`,
    tags: [def.tag],
    parameters: [
      ...parameters(def.params, 'path', defs, name),
      ...parameters(def.query, 'query', defs, name),
    ],
    ...(def.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: jsonSchema(def.body, 'input', defs, `${name}.body`) },
            },
          },
        }
      : {}),
    responses: {
      [String(def.successCode ?? 200)]: {
        description: 'Success',
        ...(def.response
          ? {
              content: {
                'application/json': {
                  schema: jsonSchema(def.response, 'output', defs, `${name}.response`),
                },
              },
            }
          : {}),
      },
      default: {
        description: 'A Kubernetes Status naming the problem (and the failing fields)',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } },
      },
    },
    ...('anonymous' in def.access ? { security: [] } : {}),
  };
}

/** The API as an OpenAPI 3.1 document, generated from the route schemas. */
export function buildOpenApiDocument(version = '0.1.0'): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const defs: Defs = {};
  const status = jsonSchema(Status, 'output', defs, 'Status');
  for (const [name, def] of Object.entries(ROUTES) as Array<[string, RouteDef]>) {
    paths[def.path] ??= {};
    (paths[def.path] as Record<string, JsonSchema>)[def.method.toLowerCase()] = operation(
      name,
      def,
      defs,
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Toolgate control-plane API',
      version,
      description:
        'Kubernetes-style resources (toolgate.dev/v1), gateway sync, receipts and audit. ' +
        'Authenticate with `Authorization: Bearer <token>`.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Status: status, ...defs },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
