import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import type { HostedEventInput } from './response-context.ts';

/**
 * What OpenAI Responses items mean for mediation, read the same way wherever they appear: in a
 * response's `output` (judged before the agent sees them) and in a request's `input` (the
 * history the agent sends back: renamed for the provider, read for `history` and tool results).
 */

/** A call the agent executes: the name it is judged by, its arguments, the id results cite. */
export interface ResponsesCall {
  /** `call_id`: what `function_call_output` (and the other outputs) answer with. */
  readonly id: string;
  /** Function and custom calls: the tool's name; typed calls: their tool (`computer`, `shell`). */
  readonly name: string;
  readonly args: unknown;
}

/**
 * The call an item is, if the agent executes it: `function_call`, `custom_tool_call`, and the
 * typed calls of agent-run tools (`computer_call`, `local_shell_call`, a `shell_call` outside
 * the provider's container, `apply_patch_call`). Undefined for anything else, and for a call
 * without a name. A namespaced function call is named `namespace/name`, a name no request
 * declares (namespace tools are refused), so it is judged undeclared.
 */
export function readCallItem(item: JsonObject): ResponsesCall | undefined {
  const id = typeof item.call_id === 'string' ? item.call_id : '';
  switch (item.type) {
    case 'function_call':
    case 'custom_tool_call': {
      if (typeof item.name !== 'string') return undefined;
      const namespace = typeof item.namespace === 'string' && item.namespace !== '';
      const name = namespace ? `${item.namespace}/${item.name}` : item.name;
      return { id, name, args: item.type === 'function_call' ? item.arguments : item.input };
    }
    case 'computer_call':
      return { id, name: 'computer', args: item.action ?? item.actions ?? null };
    case 'local_shell_call':
      return { id, name: 'local_shell', args: item.action ?? null };
    case 'shell_call':
      return isHostedShell(item) ? undefined : { id, name: 'shell', args: item.action ?? null };
    case 'apply_patch_call':
      return { id, name: 'apply_patch', args: item.operation ?? null };
    default:
      return undefined;
  }
}

/** Whether a call item names its tool (`name`), so renaming applies to it. */
export function isNamedCall(item: JsonObject): boolean {
  return item.type === 'function_call' || item.type === 'custom_tool_call';
}

/** A `shell_call` run in the provider's container (a hosted shell), not by the agent. */
function isHostedShell(item: JsonObject): boolean {
  return isJsonObject(item.environment) && item.environment.type === 'container_reference';
}

/** The result of an earlier call, as the agent sends it back in `input`. */
export interface ResponsesResult {
  readonly id: string;
  readonly content: JsonValue | undefined;
  readonly isError: boolean;
}

const RESULT_ITEMS = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'computer_call_output',
  'shell_call_output',
  'apply_patch_call_output',
]);

/** The call result an input item is, if any (`function_call_output` and its kin). */
export function readResultItem(item: JsonObject): ResponsesResult | undefined {
  if (RESULT_ITEMS.has(item.type as string) && typeof item.call_id === 'string') {
    return { id: item.call_id, content: item.output, isError: item.status === 'failed' };
  }
  // A local shell output names its call by `id` (the call's call_id).
  if (item.type === 'local_shell_call_output' && typeof item.id === 'string') {
    return { id: item.id, content: item.output, isError: false };
  }
  return undefined;
}

/** Output item types the provider runs itself, reported as hosted tool events. */
const HOSTED_ITEMS = new Set([
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'tool_search_call',
]);

/** Whether the model produced the item (an assistant turn), as opposed to the agent or user. */
export function isModelItem(item: JsonObject): boolean {
  if (item.type === 'message' || item.type === undefined) return item.role === 'assistant';
  if (item.type === 'reasoning') return true;
  if (HOSTED_ITEMS.has(item.type as string)) return true;
  return readCallItem(item) !== undefined || item.type === 'shell_call';
}

/**
 * A provider-run item as a hosted tool event: web, file and tool search, code interpreter and
 * hosted shell (with the container), image generation, and the remote MCP items (named
 * `server_label/name`). Undefined for any other item.
 */
export function readHostedItem(item: JsonObject): HostedEventInput | undefined {
  const type = item.type;
  if (typeof type !== 'string') return undefined;
  if (type === 'shell_call') return isHostedShell(item) ? hostedShell(item) : undefined;
  if (!HOSTED_ITEMS.has(type)) return undefined;
  const event: HostedEventInput = { providerType: type };
  if (typeof item.id === 'string') event.id = item.id;
  switch (type) {
    case 'web_search_call':
      event.name = 'web_search';
      if (item.action !== undefined) event.input = item.action;
      setSources(event, webSearchSources(item.action));
      break;
    case 'file_search_call':
      event.name = 'file_search';
      if (item.queries !== undefined) event.input = { queries: item.queries };
      setSources(event, fileSearchSources(item.results));
      break;
    case 'code_interpreter_call':
      event.name = 'code_interpreter';
      if (item.code !== undefined) event.input = { code: item.code };
      if (typeof item.container_id === 'string') event.container = item.container_id;
      break;
    case 'image_generation_call':
      event.name = 'image_generation';
      break;
    case 'tool_search_call':
      event.name = 'tool_search';
      if (item.arguments !== undefined) event.input = item.arguments;
      break;
    default:
      readMcpItem(item, event);
  }
  if (item.status === 'failed') event.error = 'failed';
  return event;
}

function readMcpItem(item: JsonObject, event: HostedEventInput): void {
  const server = typeof item.server_label === 'string' ? item.server_label : undefined;
  if (server !== undefined) event.server = server;
  if (typeof item.name === 'string') event.name = `${server ?? ''}/${item.name}`;
  if (item.arguments !== undefined) event.input = item.arguments;
  if (typeof item.error === 'string' && item.error !== '') event.error = item.error;
  else if (isJsonObject(item.error)) event.error = 'error';
}

function hostedShell(item: JsonObject): HostedEventInput {
  const event: HostedEventInput = { providerType: 'shell_call', name: 'shell' };
  if (typeof item.id === 'string') event.id = item.id;
  if (item.action !== undefined) event.input = item.action;
  const environment = item.environment as JsonObject;
  if (typeof environment.container_id === 'string') event.container = environment.container_id;
  return event;
}

function setSources(event: HostedEventInput, sources: string[]): void {
  if (sources.length > 0) event.sources = sources;
}

/** The URLs a web search action shows: its sources, the page it opened or searched in. */
function webSearchSources(action: JsonValue | undefined): string[] {
  const sources: string[] = [];
  if (!isJsonObject(action)) return sources;
  if (Array.isArray(action.sources)) {
    for (const source of action.sources) {
      if (isJsonObject(source)) addSource(sources, source.url);
    }
  }
  addSource(sources, action.url);
  return sources;
}

/** The files a file search read (`file_id`s; results come only with `include`). */
function fileSearchSources(results: JsonValue | undefined): string[] {
  const sources: string[] = [];
  if (!Array.isArray(results)) return sources;
  for (const result of results) if (isJsonObject(result)) addSource(sources, result.file_id);
  return sources;
}

function addSource(sources: string[], value: JsonValue | undefined): void {
  if (typeof value === 'string' && value !== '' && !sources.includes(value)) sources.push(value);
}

/**
 * The URLs of the `url_citation` annotations of a message item's `output_text` parts, or
 * undefined when it has none. Responses citations are flat: `{type: "url_citation", url, title,
 * start_index, end_index}`.
 */
export function messageCitations(item: JsonObject): string[] | undefined {
  if (!Array.isArray(item.content)) return undefined;
  let found = false;
  const sources: string[] = [];
  for (const part of item.content) {
    if (!isJsonObject(part) || !Array.isArray(part.annotations)) continue;
    for (const annotation of part.annotations) {
      if (!isUrlCitation(annotation)) continue;
      found = true;
      addSource(sources, annotation.url);
    }
  }
  return found ? sources : undefined;
}

export function isUrlCitation(value: JsonValue | undefined): value is JsonObject {
  return isJsonObject(value) && value.type === 'url_citation';
}

/** A content part without its `url_citation` annotations (the same part when it has none). */
export function withoutCitations(part: JsonValue): JsonValue {
  if (!isJsonObject(part) || !Array.isArray(part.annotations)) return part;
  const kept = part.annotations.filter((a) => !isUrlCitation(a));
  return kept.length === part.annotations.length ? part : { ...part, annotations: kept };
}

/** A message item without `url_citation` annotations. */
export function messageWithoutCitations(item: JsonObject): JsonObject {
  if (!Array.isArray(item.content)) return item;
  return { ...item, content: item.content.map(withoutCitations) };
}

/** The agent-facing text of an output list: what the SDKs expose as `output_text`. */
export function outputText(output: ReadonlyArray<JsonValue>): string {
  let text = '';
  for (const item of output) {
    if (!isJsonObject(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (isJsonObject(part) && part.type === 'output_text' && typeof part.text === 'string') {
        text += part.text;
      }
    }
  }
  return text;
}
