import { ApiError } from '@toolgate/contract';
import type { Command } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { kindsHelp, type ResourceKind, resolveKind } from '../kinds.ts';
import {
  age,
  formatLabels,
  type OutputFormat,
  outputOption,
  printAs,
  renderTable,
} from '../output.ts';
import { resourceApi, type StoredResource } from '../resources.ts';
import { approvalTable } from './approvals.ts';
import { mcpServerTable } from './mcp.ts';

interface GetOptions {
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

export function registerGet(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('get')
      .summary('list resources, or show one')
      .description(
        [
          'Lists the resources of a kind, or shows one by name (`get policy x` or `get policy/x`).',
          'Table output has a few columns per kind; -o json / -o yaml print the objects as the API',
          'returns them (a list is a `List` with `items`), ready to edit and `apply`.',
          '',
          'Kinds and their aliases:',
          kindsHelp(),
          '',
          'Exit codes: 0 ok, 1 not found or API error, 2 wrong usage.',
        ].join('\n'),
      )
      .argument('<kind>', 'resource kind (or kind/name)')
      .argument('[name]', 'object name')
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate get policies',
          '  toolgate get policy github-guardrails -o yaml',
          '  toolgate get gateways -o json',
        ].join('\n'),
      ),
  ).action(async (kindArg: string, nameArg: string | undefined, options: GetOptions) => {
    const [kindText, slashName] = kindArg.split('/', 2) as [string, string | undefined];
    if (slashName !== undefined && nameArg !== undefined) {
      throw new CliError(`give the name once: "${kindArg}" or "${kindText} ${nameArg}"`);
    }
    const kind = resolveKind(kindText);
    const name = slashName ?? nameArg;
    const { client } = await connect(ctx, options);
    const api = resourceApi(client, kind);
    if (name !== undefined) {
      const object = await api.get(name).catch((error: unknown) => {
        if (error instanceof ApiError && error.httpStatus === 404) {
          throw new CliError(`${kind} "${name}" not found`);
        }
        throw error;
      });
      printAs(ctx.io, options.output, object, () => table(kind, [object]));
      return;
    }
    const items = await api.list();
    printAs(ctx.io, options.output, { apiVersion: 'v1', kind: 'List', items }, () =>
      items.length === 0 ? `No ${kind} objects found.\n` : table(kind, items),
    );
  });
}

/** Column sets per kind: what an operator scans for. */
const COLUMNS: Record<
  Exclude<ResourceKind, 'ToolCallApproval' | 'McpServer'>,
  { headers: string[]; row: (o: StoredResource) => string[] }
> = {
  MediationPolicy: {
    headers: ['NAME', 'MODE', 'PRIORITY', 'RULES', 'GENERATION', 'SELECTOR', 'AGE'],
    row: (o) => {
      const spec = o.spec as {
        mode?: string;
        priority?: number;
        rules?: unknown[];
        selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
      };
      const selector =
        Object.keys(spec.selector?.matchLabels ?? {}).length > 0 ||
        (spec.selector?.matchExpressions ?? []).length > 0
          ? formatLabels(spec.selector?.matchLabels) +
            ((spec.selector?.matchExpressions ?? []).length > 0 ? ',…' : '')
          : '<all gateways>';
      return [
        o.metadata.name,
        spec.mode ?? 'patch',
        String(spec.priority ?? 0),
        String(spec.rules?.length ?? 0),
        String(o.metadata.generation),
        selector,
        age(o.metadata.creationTimestamp),
      ];
    },
  },
  Identity: {
    headers: ['NAME', 'TYPE', 'ROLES', 'AGE'],
    row: (o) => {
      const spec = o.spec as { type: string; roles: string[] };
      return [o.metadata.name, spec.type, spec.roles.join(','), age(o.metadata.creationTimestamp)];
    },
  },
  CapabilityContract: {
    headers: ['NAME', 'TITLE', 'SIDE EFFECTS', 'AGE'],
    row: (o) => {
      const spec = o.spec as { title: string; sideEffects: string };
      return [o.metadata.name, spec.title, spec.sideEffects, age(o.metadata.creationTimestamp)];
    },
  },
  ProviderProfile: {
    headers: ['NAME', 'SURFACE', 'CAPABILITIES', 'AGE'],
    row: (o) => {
      const spec = o.spec as { surface: string; capabilities: unknown[] };
      return [
        o.metadata.name,
        spec.surface,
        String(spec.capabilities.length),
        age(o.metadata.creationTimestamp),
      ];
    },
  },
  HostedTool: {
    headers: ['NAME', 'TOOL', 'ENDPOINT', 'TIMEOUT', 'RETRIES', 'AGE'],
    row: (o) => {
      const spec = o.spec as { tool: { name: string }; endpoint: HostedEndpoint };
      return [
        o.metadata.name,
        spec.tool.name,
        endpointHost(spec.endpoint.url),
        spec.endpoint.timeout ?? '10s',
        String(spec.endpoint.retries ?? 0),
        age(o.metadata.creationTimestamp),
      ];
    },
  },
  Gateway: {
    headers: ['NAME', 'IDENTITY', 'SYNCED', 'BUNDLE', 'SPOOL', 'LAST SYNC', 'LABELS'],
    row: (o) => {
      const spec = o.spec as { identity: string };
      const status = (o.status ?? {}) as {
        conditions?: Array<{ type: string; status: string; reason: string }>;
        appliedBundleETag?: string;
        spoolDepth?: number;
        lastSyncTime?: string;
      };
      const synced = status.conditions?.find((c) => c.type === 'Synced');
      return [
        o.metadata.name,
        spec.identity,
        synced
          ? synced.status === 'True'
            ? 'True'
            : `${synced.status} (${synced.reason})`
          : 'Unknown',
        status.appliedBundleETag ? shortHash(status.appliedBundleETag) : '<none>',
        status.spoolDepth === undefined ? '-' : String(status.spoolDepth),
        status.lastSyncTime ? `${age(status.lastSyncTime)} ago` : 'never',
        formatLabels(o.metadata.labels),
      ];
    },
  },
};

interface HostedEndpoint {
  url: string;
  timeout?: string;
  retries?: number;
}

/** `https://search.internal.example:8443/v1/search` → `search.internal.example:8443` (no path: it may carry ids). */
function endpointHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function table(kind: ResourceKind, items: StoredResource[]): string {
  if (kind === 'ToolCallApproval') return approvalTable(items);
  if (kind === 'McpServer') return mcpServerTable(items);
  const { headers, row } = COLUMNS[kind];
  return renderTable(headers, items.map(row));
}

/** `sha256:0123456789ab…` → `sha256:0123456789ab` (12 hex digits, like a short git hash). */
export function shortHash(hash: string): string {
  const match = /^(sha256:)?([0-9a-f]{12})/.exec(hash.replace(/^"|"$/g, ''));
  return match ? `${match[1] ?? ''}${match[2]}` : hash;
}
