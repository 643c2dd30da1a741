import { type CompactedTool, isJsonObject, type JsonObject } from '@toolgate/core';
import type { HostedCall, HostedResult, HostedToolExecutor } from './hosted-executor.ts';

/** Names listed at most when the model asks for a tool that was not compacted. */
const LISTED_NAMES = 50;

/**
 * The gateway's built-in `tool_info` (docs/hosted-tools.md): for a tool the request advertised
 * in compact form, `{name}` gives a summary (description, parameter names, which are required)
 * and `{name, include_schema: true}` the full JSON Schema of its parameters, as the agent
 * declared it. Pure: answers from the request's own catalog, never fails with a throw.
 */
export function createToolInfoExecutor(
  compacted: ReadonlyMap<string, CompactedTool>,
  now: () => number = () => performance.now(),
): HostedToolExecutor {
  return {
    async execute(call: HostedCall): Promise<HostedResult> {
      const started = now();
      const answer = describe(compacted, call.arguments);
      return { ...answer, durationMs: now() - started };
    },
  };
}

function describe(
  compacted: ReadonlyMap<string, CompactedTool>,
  args: unknown,
): Omit<HostedResult, 'durationMs'> {
  if (!isJsonObject(args as never) || typeof (args as JsonObject).name !== 'string') {
    return failure(
      'tool_info needs {"name": "<tool name>"} (and optionally "include_schema": true)',
    );
  }
  const { name, include_schema: includeSchema } = args as JsonObject;
  if (includeSchema !== undefined && typeof includeSchema !== 'boolean') {
    return failure('include_schema must be true or false');
  }
  const tool = compacted.get(name as string);
  if (tool === undefined) {
    const names = [...compacted.keys()];
    const listed = names.slice(0, LISTED_NAMES).join(', ');
    const more = names.length > LISTED_NAMES ? `, and ${names.length - LISTED_NAMES} more` : '';
    return failure(
      `no compacted tool is named ${JSON.stringify(name)}; they are: ${listed}${more}`,
    );
  }
  const info: JsonObject = { name: tool.name };
  if (tool.description !== undefined) info.description = tool.description;
  const parameters: JsonObject = tool.parameters ?? { type: 'object', properties: {} };
  if (includeSchema === true) info.parameters = parameters;
  else {
    const properties = isJsonObject(parameters.properties) ? parameters.properties : {};
    info.parameters = Object.keys(properties);
    if (Array.isArray(parameters.required)) info.required = parameters.required;
    info.note = 'call tool_info again with include_schema: true for the full JSON Schema';
  }
  return { outcome: 'ok', isError: false, content: JSON.stringify(info) };
}

function failure(message: string): Omit<HostedResult, 'durationMs'> {
  return { outcome: 'error', isError: true, content: message };
}
