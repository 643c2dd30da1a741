/**
 * The Gemini routes' URLs: `POST /{v1beta|v1}/models/{model}:generateContent` and
 * `…:streamGenerateContent?alt=sse`. The model and the stream flag live in the path, and the
 * API key may ride in the query (`?key=`), so the URL is read once, strictly, before anything
 * else: the upstream path is rebuilt from the parts that passed, never copied from the agent's
 * URL, and the key leaves the URL for a header (it is never logged, receipted or echoed).
 */

/** What the gateway needs from a Gemini URL. */
export interface GeminiRoute {
  /** The model, for the engine (`MediationInput.target`) and the receipt. */
  model: string;
  stream: boolean;
  /** The provider path to call, rebuilt from validated parts (the stream's `alt=sse` included). */
  upstreamPath: string;
  /** The `?key=` query parameter, when the agent put its key there. */
  apiKey?: string;
}

export type GeminiRouteResult =
  | { ok: true; route: GeminiRoute }
  | { ok: false; status: 400 | 404; message: string };

/** Paths the Gemini surface owns (any POST under them is answered in Gemini's error format). */
const GEMINI_PREFIX = /^\/v1(?:beta)?\/models\//;
const GEMINI_PATH = /^\/(v1beta|v1)\/models\/([^/]*):([A-Za-z]+)$/;
/**
 * A Gemini model id (`gemini-2.5-flash`, `gemini-2.0-flash-001`): one path segment of letters,
 * digits, `.`, `_` and `-`, starting with a letter or digit. Nothing that could leave the
 * segment (`/`, `%2F`, `..` alone, `?`, `#`) or reach another upstream path gets through.
 */
const MODEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const METHODS: Readonly<Record<string, boolean>> = {
  generateContent: false,
  streamGenerateContent: true,
};

/** Whether a POST to this path (query excluded) is for the Gemini surface. */
export function isGeminiPath(path: string): boolean {
  return GEMINI_PREFIX.test(path);
}

/**
 * Reads a Gemini request URL. 404 for a method the gateway does not mediate (`countTokens`,
 * `embedContent`, …: nothing is forwarded that the policy did not see); 400 for an unusable
 * model or query. Messages never quote the URL (its query may hold the key).
 */
export function readGeminiRoute(url: string): GeminiRouteResult {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const match = GEMINI_PATH.exec(path);
  const method = match?.[3];
  const stream = method === undefined ? undefined : METHODS[method];
  if (match === null || stream === undefined) {
    return {
      ok: false,
      status: 404,
      message:
        'Toolgate mediates only models/{model}:generateContent and ' +
        'models/{model}:streamGenerateContent on the Gemini API',
    };
  }
  const [, version, model] = match as unknown as [string, string, string];
  if (!MODEL.test(model)) {
    return {
      ok: false,
      status: 400,
      message:
        'model (in the path): must be a model id of letters, digits, ".", "_" and "-", at most ' +
        '128 characters',
    };
  }
  const params = new URLSearchParams(query === -1 ? '' : url.slice(query + 1));
  const keys = params.getAll('key');
  if (keys.length > 1) return { ok: false, status: 400, message: 'key: must be sent once' };
  const alt = params.getAll('alt');
  if (alt.length > 1) return { ok: false, status: 400, message: 'alt: must be sent once' };
  if (stream && alt[0] !== 'sse') {
    return {
      ok: false,
      status: 400,
      message: 'alt: streamGenerateContent is mediated as server-sent events only; send alt=sse',
    };
  }
  if (!stream && alt[0] !== undefined && alt[0] !== 'json') {
    return { ok: false, status: 400, message: 'alt: generateContent answers JSON only' };
  }
  const route: GeminiRoute = {
    model,
    stream,
    upstreamPath: `/${version}/models/${model}:${method}${stream ? '?alt=sse' : ''}`,
  };
  if (keys[0]) route.apiKey = keys[0];
  return { ok: true, route };
}
