import { z } from 'zod';
import { deriveId, estimateTokens } from './ids.ts';
import type { DeclaredTool, ReplyPlan } from './script.ts';
import { type SseEvent, splitText } from './sse.ts';

/**
 * Google Gemini `generateContent` / `streamGenerateContent?alt=sse`: the model and the method
 * are in the path (`/v1beta/models/{model}:{method}`), the request body holds `contents`,
 * `tools` (`functionDeclarations` and built-ins such as `googleSearch`) and `toolConfig`.
 */

const Part = z.looseObject({
  text: z.string().optional(),
  functionCall: z.looseObject({ name: z.string() }).optional(),
  functionResponse: z.looseObject({ name: z.string() }).optional(),
});

/** The part of a `GenerateContentRequest` the mock reads; everything else is accepted as is. */
export const GenerateContentRequest = z.looseObject({
  contents: z
    .array(z.looseObject({ role: z.string().optional(), parts: z.array(Part).min(1) }))
    .min(1),
  tools: z
    .array(
      z.looseObject({
        functionDeclarations: z
          .array(
            z.looseObject({
              name: z.string().min(1),
              parameters: z.unknown().optional(),
              parametersJsonSchema: z.unknown().optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
  toolConfig: z.looseObject({}).optional(),
  systemInstruction: z.looseObject({}).optional(),
});
export type GenerateContentRequest = z.infer<typeof GenerateContentRequest>;

/** What the path says: `models/{model}:generateContent` or `:streamGenerateContent`. */
export function readGeminiPath(url: string): { model: string; stream: boolean } | undefined {
  const match = /\/models\/([^/?:]+):(generateContent|streamGenerateContent)(?:\?|$)/.exec(url);
  if (!match) return undefined;
  return { model: match[1] as string, stream: match[2] === 'streamGenerateContent' };
}

/** Per-request values that a real provider would generate. */
export interface GeminiContext {
  requestHash: string;
  model: string;
  promptTokens: number;
}

/** Function declarations, and each other field of a tool entry as a built-in tool. */
export function declaredTools(request: GenerateContentRequest): DeclaredTool[] {
  return (request.tools ?? []).flatMap((tool) =>
    Object.keys(tool).flatMap((field): DeclaredTool[] =>
      field === 'functionDeclarations'
        ? (tool.functionDeclarations ?? []).map((d) => ({
            name: d.name,
            function: true,
            parameters: d.parametersJsonSchema ?? d.parameters,
          }))
        : [{ name: field, function: false }],
    ),
  );
}

/** The text of the last content when the user wrote it; empty when it carries function responses. */
export function lastUserText(request: GenerateContentRequest): string {
  const last = request.contents.at(-1);
  if (last?.role === 'model') return '';
  if (last?.parts.some((part) => part.functionResponse !== undefined)) return '';
  return (last?.parts ?? [])
    .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

type GeminiPart = Record<string, unknown>;

/** The parts of the reply, in order: code execution rounds, text, function calls. */
function replyParts(plan: ReplyPlan): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const code = plan.codeExecution;
  if (code) {
    parts.push(
      { executableCode: { language: 'PYTHON', code: code.code } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: code.output } },
    );
  }
  if (plan.text) parts.push({ text: plan.text });
  for (const call of plan.toolCalls) {
    parts.push({ functionCall: { name: call.name, args: call.arguments } });
  }
  return parts.length > 0 ? parts : [{ text: '' }];
}

/** Candidate metadata of the built-in tools that ran: search grounding, URL context. */
function metadata(plan: ReplyPlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const search = plan.webSearch;
  if (search) {
    out.groundingMetadata = {
      webSearchQueries: [search.query],
      groundingChunks: search.results.map((r) => ({ web: { uri: r.url, title: r.title } })),
      groundingSupports: [
        {
          segment: { startIndex: 0, endIndex: plan.text.length, text: plan.text },
          groundingChunkIndices: [0],
          confidenceScores: [0.9],
        },
      ],
      searchEntryPoint: { renderedContent: '<div class="mock-search-entry-point"></div>' },
    };
  }
  if (plan.urlContext) {
    out.urlContextMetadata = {
      urlMetadata: plan.urlContext.urls.map((url) => ({
        retrievedUrl: url,
        urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS',
      })),
    };
  }
  return out;
}

function usageMetadata(plan: ReplyPlan, ctx: GeminiContext) {
  const candidates = estimateTokens(plan.text + JSON.stringify(plan.toolCalls));
  return {
    promptTokenCount: ctx.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: ctx.promptTokens + candidates,
  };
}

function envelope(ctx: GeminiContext) {
  return { modelVersion: ctx.model, responseId: deriveId('', ctx.requestHash, 'response') };
}

/** The non-streaming `GenerateContentResponse`. */
export function generateContent(plan: ReplyPlan, ctx: GeminiContext) {
  return {
    candidates: [
      {
        content: { role: 'model', parts: replyParts(plan) },
        finishReason: 'STOP',
        index: 0,
        ...metadata(plan),
      },
    ],
    usageMetadata: usageMetadata(plan, ctx),
    ...envelope(ctx),
  };
}

/**
 * The `data:` chunks Gemini streams for the same reply, each a whole `GenerateContentResponse`:
 * code execution parts, the text word by word, each function call whole in a chunk of its own,
 * and a last chunk with `finishReason`, the built-in tools' metadata and the final usage.
 */
export function generateContentEvents(plan: ReplyPlan, ctx: GeminiContext): SseEvent[] {
  const chunk = (parts: GeminiPart[], last = false) => ({
    data: {
      candidates: [
        {
          content: { role: 'model', parts },
          ...(last ? { finishReason: 'STOP', ...metadata(plan) } : {}),
          index: 0,
        },
      ],
      usageMetadata: usageMetadata(plan, ctx),
      ...envelope(ctx),
    },
  });
  const parts = replyParts(plan);
  const pieces: GeminiPart[][] = [];
  for (const part of parts) {
    if (typeof part.text === 'string' && part.text !== '') {
      for (const word of splitText(part.text)) pieces.push([{ text: word }]);
    } else pieces.push([part]);
  }
  const last = pieces.pop() ?? [{ text: '' }];
  return [...pieces.map((p) => chunk(p)), chunk(last, true)];
}

/** Google's error body: `{error: {code, message, status}}`. */
export function geminiError(status: number, message: string, type?: string) {
  const byStatus =
    status === 400
      ? 'INVALID_ARGUMENT'
      : status === 401
        ? 'UNAUTHENTICATED'
        : status === 403
          ? 'PERMISSION_DENIED'
          : status === 404
            ? 'NOT_FOUND'
            : status === 429
              ? 'RESOURCE_EXHAUSTED'
              : status === 503
                ? 'UNAVAILABLE'
                : 'INTERNAL';
  return { error: { code: status, message, status: type ?? byStatus } };
}
