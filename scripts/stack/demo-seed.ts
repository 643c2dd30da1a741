import { readFile } from 'node:fs/promises';
import { type ApiClient, ApiError, type RouteName } from '@toolgate/contract';
import { parseAllDocuments } from 'yaml';

/** Where each seeded kind is created and read. */
const ROUTES: Record<string, { get: RouteName; create: RouteName }> = {
  Identity: { get: 'identities.get', create: 'identities.create' },
  Gateway: { get: 'gateways.get', create: 'gateways.create' },
  MediationPolicy: { get: 'mediationPolicies.get', create: 'mediationPolicies.create' },
};

interface SeedDocument {
  kind: string;
  metadata: { name: string };
}

/**
 * Creates the demo seed's documents that do not exist yet and leaves the others alone, so a
 * restart never overwrites what the user changed. Returns what it created (`Kind/name`).
 */
export async function applyDemoSeed(client: ApiClient, file: string): Promise<string[]> {
  const documents = parseAllDocuments(await readFile(file, 'utf8')).map(
    (doc) => doc.toJS() as SeedDocument,
  );
  const created: string[] = [];
  for (const document of documents) {
    const routes = ROUTES[document.kind];
    if (!routes) throw new Error(`${file}: the demo seed cannot create a ${document.kind}`);
    const params = { name: document.metadata.name };
    if (await exists(client, routes.get, params)) continue;
    await client.call(routes.create, { body: document as never });
    created.push(`${document.kind}/${document.metadata.name}`);
  }
  return created;
}

async function exists(client: ApiClient, route: RouteName, params: { name: string }) {
  try {
    await client.call(route, { params } as never);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.httpStatus === 404) return false;
    throw error;
  }
}

/** A token of `identity` from the state file, or a new one when it is missing or no longer works. */
export async function ensureToken(
  operator: ApiClient,
  identity: string,
  known: string | undefined,
  works: (token: string) => Promise<boolean>,
  description: string,
): Promise<string> {
  if (known && (await works(known))) return known;
  const issued = await operator.call('tokens.issueToken', {
    params: { name: identity },
    body: { description },
  });
  return issued.token;
}
