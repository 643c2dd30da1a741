import { readFile } from 'node:fs/promises';
import { API_PREFIX, type ApiClient, ApiError, type RouteName } from '@toolgate/contract';
import { parseAllDocuments } from 'yaml';

/** Where each seeded kind is created and read. */
const ROUTES: Record<string, { get: RouteName; create: RouteName }> = {
  Identity: { get: 'identities.get', create: 'identities.create' },
  Gateway: { get: 'gateways.get', create: 'gateways.create' },
  MediationPolicy: { get: 'mediationPolicies.get', create: 'mediationPolicies.create' },
};
/**
 * Kinds seeded through their REST collection (the fixed URL of docs/mcp.md) rather than a named
 * route of the typed client.
 */
const COLLECTIONS: Record<string, string> = { McpServer: 'mcpservers' };
/** The seed's McpServer that stands for the demo MCP server `pnpm start` runs. */
export const DEMO_MCP_SERVER = 'demo';

interface SeedDocument {
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
}

/** The API as the seed writes to it: its typed client, and what a plain REST call needs. */
export interface SeedApi {
  client: ApiClient;
  baseUrl: string;
  token: string;
}

/**
 * Creates the demo seed's documents that do not exist yet and leaves the others alone, so a
 * restart never overwrites what the user changed. The McpServer `demo` is created pointing at
 * `demoMcpUrl`, where this stack runs the demo MCP server (the file's URL is the default port's).
 * Returns what it created (`Kind/name`).
 */
export async function applyDemoSeed(
  api: SeedApi,
  file: string,
  options: { demoMcpUrl: string },
): Promise<string[]> {
  const documents = parseAllDocuments(await readFile(file, 'utf8')).map(
    (doc) => doc.toJS() as SeedDocument,
  );
  const created: string[] = [];
  for (const document of documents) {
    const label = `${document.kind}/${document.metadata.name}`;
    const collection = COLLECTIONS[document.kind];
    if (collection) {
      if (document.kind === 'McpServer' && document.metadata.name === DEMO_MCP_SERVER) {
        document.spec = { ...document.spec, url: options.demoMcpUrl };
      }
      if (await createThroughCollection(api, collection, document)) created.push(label);
      continue;
    }
    const routes = ROUTES[document.kind];
    if (!routes) throw new Error(`${file}: the demo seed cannot create a ${document.kind}`);
    const params = { name: document.metadata.name };
    if (await exists(api.client, routes.get, params)) continue;
    await api.client.call(routes.create, { body: document as never });
    created.push(label);
  }
  return created;
}

/** Creates `document` unless it exists; true when it created it. Any other answer throws. */
async function createThroughCollection(
  api: SeedApi,
  collection: string,
  document: SeedDocument,
): Promise<boolean> {
  const url = `${api.baseUrl}${API_PREFIX}/${collection}`;
  const headers = { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' };
  const found = await fetch(`${url}/${encodeURIComponent(document.metadata.name)}`, { headers });
  await found.arrayBuffer();
  if (found.ok) return false;
  if (found.status !== 404) {
    throw new Error(`reading ${document.kind}/${document.metadata.name}: HTTP ${found.status}`);
  }
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(document) });
  if (response.status !== 201) {
    const text = (await response.text()).slice(0, 500);
    throw new Error(
      `creating ${document.kind}/${document.metadata.name}: HTTP ${response.status} ${text}`,
    );
  }
  await response.arrayBuffer();
  return true;
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
