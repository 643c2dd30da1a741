import { z } from 'zod';
import type { RouteDef } from './route.ts';
import { ROUTES } from './routes/index.ts';
import { Status } from './status.ts';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
}

/** Query and path parameters from an object schema, one OpenAPI parameter per property. */
function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const doc = jsonSchema(schema, 'input');
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

function operation(name: string, def: RouteDef): JsonSchema {
  const access =
    'anonymous' in def.access
      ? 'anonymous'
      : `roles: ${def.access.roles.join(', ')}${def.access.ownGateway ? ' (a gateway: only its own)' : ''}`;
  return {
    operationId: name,
    summary: def.summary,
    description: `Access — ${access}.`,
    tags: [def.tag],
    parameters: [...parameters(def.params, 'path'), ...parameters(def.query, 'query')],
    ...(def.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(def.body, 'input') } },
          },
        }
      : {}),
    responses: {
      [String(def.successCode ?? 200)]: {
        description: 'Success',
        ...(def.response
          ? { content: { 'application/json': { schema: jsonSchema(def.response, 'output') } } }
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
  for (const [name, def] of Object.entries(ROUTES) as Array<[string, RouteDef]>) {
    paths[def.path] ??= {};
    (paths[def.path] as Record<string, JsonSchema>)[def.method.toLowerCase()] = operation(
      name,
      def,
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
      schemas: { Status: jsonSchema(Status, 'output') },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
