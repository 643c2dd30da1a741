import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import type { HostedToolEvidence } from '../receipt/receipt-schema.ts';
import type { HostedEventInput, ResponseContext } from './response-context.ts';

/**
 * Gemini's built-in tool evidence mapped to capability contracts. Gemini reports what its tools
 * did in three places: candidate metadata (`groundingMetadata` for Google Search and file
 * search, `urlContextMetadata` for URL context), parts of the turn (`executableCode` and
 * `codeExecutionResult` for code execution), and, when the request asks for
 * `toolConfig.includeServerSideToolInvocations`, `toolCall` / `toolResponse` parts. Each is
 * described under the built-in tool's field name (`googleSearch`, `urlContext`,
 * `codeExecution`), which is the name the request declared it by.
 */

/** A `toolCall.toolType` → the built-in tool (request field) that ran it. */
const TOOL_TYPE_TOOL: Readonly<Record<string, string>> = {
  GOOGLE_SEARCH_WEB: 'googleSearch',
  GOOGLE_SEARCH_IMAGE: 'googleSearch',
  URL_CONTEXT: 'urlContext',
  GOOGLE_MAPS: 'googleMaps',
  FILE_SEARCH: 'fileSearch',
};

/** The tools a grounding could come from, by what its chunks hold, most likely first. */
const SEARCH_TOOLS = ['googleSearch', 'googleSearchRetrieval'];

/**
 * Describes a candidate's `groundingMetadata`: the search queries (`webSearchQueries`, hashed
 * as the input) and the sources (`groundingChunks[].web.uri`, or `retrievedContext.uri` for
 * file search). Which declared tool it belongs to is told by its chunks; of the tools that
 * could have produced it, an allowed one wins, then a blocked one (the evidence must not reach
 * the agent), else it is opaque (no such tool was offered).
 */
export function describeGrounding(grounding: JsonObject, ctx: ResponseContext): HostedToolEvidence {
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const sources: string[] = [];
  let kind: 'web' | 'retrieved' | 'maps' | undefined;
  for (const chunk of chunks) {
    if (!isJsonObject(chunk)) continue;
    for (const key of ['web', 'retrievedContext', 'maps'] as const) {
      const source = chunk[key];
      if (!isJsonObject(source)) continue;
      kind ??= key === 'web' ? 'web' : key === 'maps' ? 'maps' : 'retrieved';
      if (typeof source.uri === 'string' && !sources.includes(source.uri)) sources.push(source.uri);
    }
  }
  const queries = stringList(grounding.webSearchQueries);
  const names =
    queries.length > 0 || kind === undefined || kind === 'web'
      ? SEARCH_TOOLS
      : kind === 'maps'
        ? ['googleMaps']
        : ['fileSearch'];
  const event: HostedEventInput = { providerType: 'groundingMetadata' };
  if (queries.length > 0) event.input = queries;
  if (sources.length > 0) event.sources = sources;
  return mostPermissive(names.map((name) => ctx.describeHostedEvent({ ...event, name })));
}

/**
 * Describes a candidate's `urlContextMetadata`: the URLs the tool retrieved, and the
 * retrieval statuses other than success as the error.
 */
export function describeUrlContext(metadata: JsonObject, ctx: ResponseContext): HostedToolEvidence {
  const entries = Array.isArray(metadata.urlMetadata) ? metadata.urlMetadata : [];
  const sources: string[] = [];
  const failures: string[] = [];
  for (const entry of entries) {
    if (!isJsonObject(entry)) continue;
    const url = entry.retrievedUrl;
    if (typeof url === 'string' && !sources.includes(url)) sources.push(url);
    const status = entry.urlRetrievalStatus;
    if (typeof status === 'string' && status !== 'URL_RETRIEVAL_STATUS_SUCCESS') {
      if (!failures.includes(status)) failures.push(status);
    }
  }
  const event: HostedEventInput = { providerType: 'urlContextMetadata', name: 'urlContext' };
  if (sources.length > 0) event.sources = sources;
  if (failures.length > 0) event.error = failures.join(',');
  return ctx.describeHostedEvent(event);
}

/** What a hosted part is: a call of a built-in tool, its result, or neither. */
export type HostedPart =
  | { role: 'call' | 'result'; key: string; id: string | undefined; event: HostedEventInput }
  | undefined;

/**
 * A part that reports a built-in tool at work: `executableCode` (the call, the code hashed as
 * its input) and `codeExecutionResult` (its outcome, an error unless `OUTCOME_OK`), or
 * `toolCall` / `toolResponse` (a server-side invocation, by `toolType`).
 */
export function hostedPart(part: JsonObject): HostedPart {
  const code = part.executableCode;
  if (isJsonObject(code)) {
    const input: JsonObject = {};
    if (code.code !== undefined) input.code = code.code;
    if (code.language !== undefined) input.language = code.language;
    return hosted('call', 'executableCode', code, { name: 'codeExecution', input });
  }
  const result = part.codeExecutionResult;
  if (isJsonObject(result)) {
    const outcome = result.outcome;
    const error = typeof outcome === 'string' && outcome !== 'OUTCOME_OK' ? outcome : undefined;
    return hosted('result', 'codeExecutionResult', result, {
      name: 'codeExecution',
      ...(error !== undefined ? { error } : {}),
    });
  }
  for (const [key, role] of [
    ['toolCall', 'call'],
    ['toolResponse', 'result'],
  ] as const) {
    const invocation = part[key];
    if (!isJsonObject(invocation)) continue;
    const type = typeof invocation.toolType === 'string' ? invocation.toolType : 'unknown';
    const extra: Partial<HostedEventInput> = { name: TOOL_TYPE_TOOL[type] ?? type };
    if (role === 'call' && invocation.args !== undefined) extra.input = invocation.args;
    return hosted(role, key, invocation, extra);
  }
  return undefined;
}

function hosted(
  role: 'call' | 'result',
  key: string,
  inner: JsonObject,
  extra: Partial<HostedEventInput>,
): HostedPart {
  const id = typeof inner.id === 'string' ? inner.id : undefined;
  const event: HostedEventInput = { providerType: key, ...extra };
  if (id !== undefined) event.id = id;
  return { role, key, id, event };
}

/** Of several descriptions of one event: an allowed one, else a blocked one, else the first. */
function mostPermissive(described: HostedToolEvidence[]): HostedToolEvidence {
  return (
    described.find((e) => e.policy_state === 'allowed') ??
    described.find((e) => e.policy_state === 'blocked') ??
    (described[0] as HostedToolEvidence)
  );
}

function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
