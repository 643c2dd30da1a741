import { UnsupportedRequestError } from '../../errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import { RECEIPT_LIMITS, receiptTextProblem } from '../../receipt/receipt-limits.ts';
import type { ExecutedBy } from '../../resources/vocabulary.ts';
import type { FunctionParts, RequestTool, SurfaceAdapter } from '../request-tool.ts';
import { functionTool } from './openai-chat.ts';
import {
  nonEmptyString,
  RequestProblems,
  readToolArray,
  ToolListMemo,
  withKey,
} from './request-fields.ts';

const KIND = 'MessagesRequest';
const LISTS = new ToolListMemo();

/**
 * Anthropic-defined tool types by prefix: who runs them and which contract they fall under.
 * Computer use, bash and the text editor are schema-less client tools the agent executes;
 * web search, web fetch and code execution run on Anthropic's side.
 */
const NATIVE_TOOL_TYPES: ReadonlyArray<{
  prefix: string;
  executedBy: ExecutedBy;
  capability?: string;
}> = [
  { prefix: 'web_search_', executedBy: 'provider', capability: 'wardwright.web_search.v1' },
  { prefix: 'web_fetch_', executedBy: 'provider', capability: 'wardwright.url_fetch.v1' },
  { prefix: 'code_execution_', executedBy: 'provider', capability: 'wardwright.code_exec.v1' },
  { prefix: 'computer_', executedBy: 'agent', capability: 'wardwright.computer_use.v1' },
  { prefix: 'bash_', executedBy: 'agent' },
  { prefix: 'text_editor_', executedBy: 'agent' },
  { prefix: 'memory_', executedBy: 'agent' },
];

/** Anthropic Messages (`POST /v1/messages`). */
export const anthropicMessagesAdapter: SurfaceAdapter = {
  surface: 'anthropic-messages',
  shape: 'anthropic-messages',
  listKey: 'tools',

  readTools(body) {
    refuseThread(body);
    const problems = new RequestProblems(KIND);
    const tools = LISTS.read(body, problems, () => listTools(body, problems));
    findToolChanges(body, problems);
    const servers = body.mcp_servers;
    if (servers !== undefined && servers !== null) {
      if (!Array.isArray(servers)) problems.add('mcp_servers', 'must be an array');
      else if (servers.length > RECEIPT_LIMITS.tools)
        problems.add('mcp_servers', `must hold at most ${RECEIPT_LIMITS.tools} servers`);
      else
        for (const [index, server] of servers.entries()) {
          if (!isJsonObject(server)) {
            problems.add(`mcp_servers[${index}]`, 'must be an object');
            continue;
          }
          const name = nonEmptyString(server.name, `mcp_servers[${index}].name`, problems);
          if (name)
            tools.push({
              name,
              type: 'mcp_server',
              kind: 'provider',
              declaredBy: 'mcp',
              executedBy: 'remote_mcp',
              capability: 'wardwright.mcp_tool.v1',
              raw: server,
              origin: 'mcp_servers',
              index,
            });
        }
    }
    problems.throwIfAny();
    return tools;
  },

  functionParts(raw) {
    const parts: FunctionParts = { name: String(raw.name) };
    if (typeof raw.description === 'string') parts.description = raw.description;
    if (isJsonObject(raw.input_schema)) parts.parameters = raw.input_schema;
    return parts;
  },

  writeFunction(parts, base) {
    const out: JsonObject = { ...(base ?? {}), name: parts.name };
    if (parts.description !== undefined) out.description = parts.description;
    else delete out.description;
    // Anthropic requires input_schema on every custom tool.
    out.input_schema = parts.parameters ?? { type: 'object', properties: {} };
    return out;
  },

  readToolChoice(body) {
    const choice = body.tool_choice;
    if (choice === undefined || choice === null) return { kind: 'absent' };
    if (isJsonObject(choice) && choice.type === 'tool') {
      return { kind: 'named', name: String(choice.name), raw: choice };
    }
    return { kind: 'mode', raw: choice };
  },

  renameToolChoice(choice, providerNames) {
    if (choice.kind === 'named') return { ...choice.raw, name: providerNames[0] ?? '' };
    return choice.kind === 'mode' ? choice.raw : null;
  },

  writeRequest(body, edit) {
    let out: JsonObject = { ...body };
    if (edit.declarations.length > 0) out.tools = edit.declarations as JsonObject[];
    else delete out.tools;
    out = withKey(out, 'tool_choice', edit.declarations.length > 0 ? edit.toolChoice : undefined);
    const hiddenServers = new Set(
      edit.hiddenRequestLevel.filter((t) => t.origin === 'mcp_servers').map((t) => t.index),
    );
    if (hiddenServers.size > 0 && Array.isArray(body.mcp_servers)) {
      const kept = body.mcp_servers.filter((_, index) => !hiddenServers.has(index));
      out = withKey(out, 'mcp_servers', kept.length > 0 ? kept : undefined);
    }
    if (edit.renames.size > 0 && Array.isArray(body.messages)) {
      out.messages = body.messages.map((m) => renameHistory(m, edit.renames));
    }
    return out;
  },
};

/**
 * Message threads (`thread: {type: "create" | "continue"}`, beta) are refused: a continued turn
 * carries no `tools` (the provider keeps the thread's), so the gateway could neither show the
 * provider a mediated tool list nor judge the calls that come back. The refusal carries the
 * provider's own `thread_unsupported_request` details, on which the official SDK's
 * `toolRunner` resends the full conversation without `thread`, so tool loops keep working.
 */
function refuseThread(body: JsonObject): void {
  if (body.thread === undefined || body.thread === null) return;
  throw new UnsupportedRequestError(
    KIND,
    [
      {
        field: 'thread',
        message:
          'message threads are not supported through Toolgate (a continued thread carries no ' +
          'tools to mediate); send the full conversation without thread',
      },
    ],
    { error_code: 'thread_unsupported_request', unsupported: ['toolgate_tool_mediation'] },
  );
}

/**
 * `tool_addition` / `tool_removal` blocks declare or withdraw tools mid-conversation, past the
 * `tools` the policy mediates (an inline definition could offer a hidden tool): refused, with
 * the block's path.
 */
function findToolChanges(body: JsonObject, problems: RequestProblems): void {
  const lists: Array<[string, JsonValue | undefined]> = [['system', body.system]];
  if (Array.isArray(body.messages)) {
    body.messages.forEach((message, i) => {
      if (isJsonObject(message)) lists.push([`messages[${i}].content`, message.content]);
    });
  }
  for (const [path, blocks] of lists) {
    if (!Array.isArray(blocks)) continue;
    blocks.forEach((block, j) => {
      if (isJsonObject(block) && TOOL_CHANGES.has(block.type as string)) {
        problems.add(
          `${path}[${j}]`,
          `${String(block.type)} blocks are not supported through Toolgate; declare tools in tools`,
        );
      }
    });
  }
}

const TOOL_CHANGES = new Set(['tool_addition', 'tool_removal']);

/** The tools of `body.tools` (function tools and the provider's own). */
function listTools(body: JsonObject, problems: RequestProblems): RequestTool[] {
  const tools: RequestTool[] = [];
  for (const [index, raw] of readToolArray(body, problems).entries()) {
    const name = nonEmptyString(raw.name, `tools[${index}].name`, problems);
    if (!name) continue;
    const type = raw.type;
    if (type === undefined || type === null || type === 'custom') {
      tools.push(functionTool(name, raw, index));
    } else if (typeof type !== 'string') {
      problems.add(`tools[${index}].type`, 'must be a string');
    } else if (receiptTextProblem(type, RECEIPT_LIMITS.toolType) !== undefined) {
      problems.add(
        `tools[${index}].type`,
        receiptTextProblem(type, RECEIPT_LIMITS.toolType) as string,
      );
    } else {
      const native = NATIVE_TOOL_TYPES.find((t) => type.startsWith(t.prefix));
      const executedBy = native?.executedBy ?? 'provider';
      tools.push({
        name,
        type,
        kind: 'provider',
        declaredBy: executedBy === 'provider' ? 'provider' : 'agent',
        executedBy,
        ...(native?.capability ? { capability: native.capability } : {}),
        raw,
        origin: 'tools',
        index,
      });
    }
  }
  return tools;
}

function renameHistory(message: JsonValue, renames: ReadonlyMap<string, string>): JsonValue {
  if (!isJsonObject(message) || !Array.isArray(message.content)) return message;
  let changed = false;
  const content = message.content.map((block) => {
    if (!isJsonObject(block) || block.type !== 'tool_use') return block;
    const renamed = renames.get(String(block.name));
    if (renamed === undefined) return block;
    changed = true;
    return { ...block, name: renamed };
  });
  return changed ? { ...message, content } : message;
}
