import type { McpDrift, McpServer, McpServerSpec, McpServerStatus } from '@toolgate/core';
import type { Command } from 'commander';
import { ApiError, connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { age, type OutputFormat, outputOption, printAs, renderTable } from '../output.ts';
import type { StoredResource } from '../resources.ts';

interface Options {
  apiUrl?: string;
  token?: string;
  output: OutputFormat;
}
interface DriftOptions extends Options {
  all?: boolean;
}
interface AcceptOptions extends Options {
  hash?: string;
}

/**
 * `toolgate mcp list|get|drifts|accept`: the MCP servers behind the gateways, the tool
 * definitions pinned for each, and the drifts (changed definitions) waiting for an operator.
 */
export function registerMcp(program: Command, ctx: CliContext): void {
  const mcp = program
    .command('mcp')
    .summary('list MCP servers, their pinned tools and drifts; accept a changed tool')
    .description(
      [
        "An McpServer is an upstream MCP server agents reach at the gateway's /mcp/<name>.",
        'The first definition of each tool a gateway sees is pinned (its content hash); a later',
        'change is a drift. With spec.drift: block the changed tool stays hidden until an',
        'operator accepts its new definition (`toolgate mcp accept`). Create servers with',
        '`toolgate apply -f`. See docs/mcp.md.',
      ].join('\n'),
    );

  withConnectionOptions(
    mcp
      .command('list')
      .summary('list MCP servers with tool counts and open drifts')
      .description(
        [
          'Lists every McpServer: upstream URL, drift mode, number of tools seen, open drifts and',
          'when a gateway last reported its tools.',
          '',
          'Exit codes: 0 listed (even when empty), 1 the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .addOption(outputOption())
      .addHelpText(
        'after',
        ['', 'Examples:', '  toolgate mcp list', '  toolgate mcp list -o json'].join('\n'),
      ),
  ).action(async (options: Options) => {
    const { client } = await connect(ctx, options);
    const items: McpServer[] = [];
    let next: string | undefined;
    do {
      const page = await client.call('mcpServers.list', {
        query: { limit: 500, ...(next ? { continue: next } : {}) },
      });
      items.push(...(page?.items ?? []));
      next = page?.metadata.continue;
    } while (next);
    printAs(ctx.io, options.output, { apiVersion: 'v1', kind: 'List', items }, () =>
      items.length === 0 ? 'No MCP servers found.\n' : mcpServerTable(items),
    );
  });

  withConnectionOptions(
    mcp
      .command('get')
      .argument('<name>', 'McpServer name')
      .summary("show one server's tools: pinned and latest definition")
      .description(
        [
          "Shows a server's tools with their pinned and latest definition hashes; a tool whose",
          'latest differs from its pin has drifted. -o yaml|json prints the whole object.',
          '',
          'Exit codes: 0 shown, 1 not found or the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .addOption(outputOption())
      .addHelpText('after', ['', 'Examples:', '  toolgate mcp get github'].join('\n')),
  ).action(async (name: string, options: Options) => {
    const { client } = await connect(ctx, options);
    const server = await client.call('mcpServers.get', { params: { name } }).catch(notFound(name));
    printAs(ctx.io, options.output, server, () => serverDetail(server));
  });

  withConnectionOptions(
    mcp
      .command('drifts')
      .argument('<name>', 'McpServer name')
      .summary("list a server's drift events (open ones by default)")
      .description(
        [
          'Lists the changes of tool definitions on this server, newest first: the tool, the',
          'pinned definition (FROM) and the new one (TO), state (open, accepted, reverted,',
          'superseded), when and by which gateway it was seen. --all includes resolved ones.',
          '',
          'Exit codes: 0 listed (even when empty), 1 not found or the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .option('--all', 'also drifts already accepted, reverted or superseded')
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate mcp drifts github',
          '  toolgate mcp drifts github --all -o json',
        ].join('\n'),
      ),
  ).action(async (name: string, options: DriftOptions) => {
    const { client } = await connect(ctx, options);
    const server = await client.call('mcpServers.get', { params: { name } }).catch(notFound(name));
    const drifts = [...(statusOf(server).drifts ?? [])]
      .filter((drift) => options.all || drift.state === 'open')
      .reverse();
    printAs(ctx.io, options.output, { apiVersion: 'v1', kind: 'List', items: drifts }, () =>
      drifts.length === 0
        ? `No ${options.all ? '' : 'open '}drifts on ${name}.\n`
        : driftTable(drifts),
    );
  });

  withConnectionOptions(
    mcp
      .command('accept')
      .argument('<name>', 'McpServer name')
      .argument('<tool>', 'tool name as the server lists it')
      .summary("pin a tool's new definition (accept its drift)")
      .description(
        [
          "Pins the tool's latest definition and marks its open drifts accepted: with",
          'drift: block the tool is offered to agents again. --hash makes it conditional: refused',
          'when the latest definition is no longer the one you reviewed (it changed again).',
          'Needs the operator role.',
          '',
          'Exit codes: 0 accepted (or nothing to accept), 1 not found, changed meanwhile or the',
          'API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .option('--hash <sha256>', 'the definition hash you reviewed (sha256:…)')
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate mcp drifts github',
          `  toolgate mcp accept github create_issue --hash sha256:${'0'.repeat(64)}`,
        ].join('\n'),
      ),
  ).action(async (name: string, tool: string, options: AcceptOptions) => {
    const { client } = await connect(ctx, options);
    const server = await client
      .call('mcpServers.accept', {
        params: { name },
        body: { tool, ...(options.hash !== undefined ? { hash: options.hash } : {}) },
      })
      .catch(notFound(name));
    const pin = statusOf(server).tools?.find((t) => t.name === tool);
    printAs(
      ctx.io,
      options.output,
      server,
      () => `mcpserver/${name} ${tool} pinned to ${pin?.pinned ?? '?'}\n`,
    );
  });
}

function notFound(name: string) {
  return (error: unknown): never => {
    if (error instanceof ApiError && error.httpStatus === 404) {
      throw new CliError(error.message || `McpServer "${name}" not found`);
    }
    throw error;
  };
}

function statusOf(server: McpServer | StoredResource): Partial<McpServerStatus> {
  return (server.status ?? {}) as Partial<McpServerStatus>;
}

/** The table of `mcp list` and of `get mcpservers`. */
export function mcpServerTable(items: ReadonlyArray<McpServer | StoredResource>): string {
  const now = new Date();
  return renderTable(
    ['NAME', 'URL', 'DRIFT', 'TOOLS', 'OPEN DRIFTS', 'LAST OBSERVED'],
    items.map((item) => {
      const spec = item.spec as McpServerSpec;
      const status = statusOf(item);
      return [
        item.metadata.name,
        spec.url,
        spec.drift ?? 'warn',
        String(status.tools?.length ?? 0),
        String(status.drifts?.filter((d) => d.state === 'open').length ?? 0),
        status.observedAt ? `${age(status.observedAt, now)} ago` : 'never',
      ];
    }),
  );
}

function serverDetail(server: McpServer): string {
  const tools = statusOf(server).tools ?? [];
  const head = mcpServerTable([server]);
  if (tools.length === 0) return `${head}\nNo tools observed yet.\n`;
  return `${head}\n${renderTable(
    ['TOOL', 'PINNED', 'LATEST', 'STATE', 'LAST SEEN'],
    tools.map((tool) => [
      tool.name,
      short(tool.pinned),
      short(tool.latest),
      tool.pinned === tool.latest ? 'pinned' : 'drifted',
      `${age(tool.lastSeenAt)} ago`,
    ]),
  )}`;
}

function driftTable(drifts: ReadonlyArray<McpDrift>): string {
  return renderTable(
    ['ID', 'TOOL', 'FROM', 'TO', 'STATE', 'DETECTED', 'BY'],
    drifts.map((drift) => [
      drift.id,
      drift.tool,
      short(drift.from),
      short(drift.to),
      drift.resolvedBy ? `${drift.state} (${drift.resolvedBy})` : drift.state,
      `${age(drift.detectedAt)} ago`,
      drift.detectedBy,
    ]),
  );
}

/** `sha256:` + the first 12 hex digits, like a short git hash. */
function short(hash: string): string {
  return hash.slice(0, 'sha256:'.length + 12);
}
