import { z } from 'zod';
import { route } from '../route.ts';

const Health = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.string()),
});

export const systemRouteTable = {
  healthz: route({
    method: 'GET',
    path: '/healthz',
    tag: 'System',
    summary: 'Liveness: the process answers',
    access: { anonymous: true },
    response: Health,
  }),
  readyz: route({
    method: 'GET',
    path: '/readyz',
    tag: 'System',
    summary: 'Readiness: PostgreSQL answers',
    access: { anonymous: true },
    response: Health,
  }),
  openapi: route({
    method: 'GET',
    path: '/docs/openapi.json',
    tag: 'System',
    summary: 'This API as an OpenAPI 3.1 document',
    access: { anonymous: true },
    response: z.record(z.string(), z.unknown()),
  }),
  docs: route({
    method: 'GET',
    path: '/docs',
    tag: 'System',
    summary: 'API reference (HTML)',
    access: { anonymous: true },
    response: null,
  }),
};
