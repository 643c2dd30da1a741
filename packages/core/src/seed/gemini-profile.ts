import { API_VERSION } from '../resources/envelope.ts';
import type { ProviderProfile } from '../resources/provider-profile.ts';
import { seedObjectMeta } from './capability-contracts.ts';

/*
 * Gemini's column of the fidelity matrix, from the `generateContent` wire format
 * (`GenerateContentResponse`, `Candidate`, `Part`, `GroundingMetadata`, `UrlContextMetadata`)
 * as Google documents it and the @google/genai SDK types it. Built-in tools are request fields of
 * a `tools[]` entry (`googleSearch: {}`), not named tools, and they report in candidate metadata
 * or in parts of the turn, never as calls the gateway could hold.
 */

const NO_PER_CALL_APPROVAL =
  'No per-call approval: Gemini runs the tool during the request, before any output reaches ' +
  'Toolgate. Toolgate can remove the tool (hide) before sending and strip its evidence from the ' +
  'answer, but cannot stop one run once the tool was offered.';

/** Google Gemini `generateContent` / `streamGenerateContent` (`/v1beta/models/{model}:…`). */
export const GEMINI_PROFILE: ProviderProfile = {
  apiVersion: API_VERSION,
  kind: 'ProviderProfile',
  metadata: seedObjectMeta('ProviderProfile', 'gemini'),
  spec: {
    surface: 'gemini',
    displayName: 'Google Gemini',
    capabilities: [
      {
        contract: 'wardwright.web_search.v1',
        nativeTypes: ['googleSearch', 'googleSearchRetrieval'],
        fidelity: 'provider_attested',
        requestSchema:
          'A `tools[]` entry {googleSearch: {searchTypes?, timeRangeFilter?}} (Gemini 2.0 and ' +
          'later), or the legacy {googleSearchRetrieval: {dynamicRetrievalConfig: {mode, ' +
          'dynamicThreshold}}} (Gemini 1.5). No tool name and no input schema: the model ' +
          'decides when to search and may search several times in one request.',
        eventShape:
          'No call part: the candidate carries `groundingMetadata` {webSearchQueries: [string], ' +
          'groundingChunks: [{web: {uri, title}}], groundingSupports: [{segment: {startIndex, ' +
          'endIndex, text}, groundingChunkIndices, confidenceScores}], searchEntryPoint: ' +
          '{renderedContent}}. Streamed, it arrives on a chunk near the end of the stream. With ' +
          'toolConfig.includeServerSideToolInvocations, `toolCall` {toolType: ' +
          'GOOGLE_SEARCH_WEB, args} and `toolResponse` parts show the invocation too.',
        citations:
          'groundingSupports tie character spans of the answer to groundingChunks; each chunk ' +
          'has a uri and a title. In the documented responses the uri is a Google redirect ' +
          '(vertexaisearch.cloud.google.com/grounding-api-redirect/…) and the title the site ' +
          'domain, so the cited page is named only once the redirect is followed.',
        gaps: [
          'webSearchQueries show what was searched, but the results are not returned: ' +
            'groundingChunks are the sources the answer was grounded on, not what the search ' +
            'found, and their content is never returned.',
          'Chunk URIs are redirect links, recorded as sent; the receipt cannot name the page ' +
            'behind one without fetching it.',
          'googleSearch has no domain filter in the Gemini API (excludeDomains is Vertex AI only); ' +
            'the only controls are removing the tool or changing the model.',
          'The number of searches is not reported apart from the queries listed.',
          "Supports and confidence scores are the provider's claim; Toolgate cannot check that a " +
            'source says what the cited span says.',
        ],
        approval: `${NO_PER_CALL_APPROVAL} Read-only; Google bills grounded requests.`,
        replay:
          'Not replayable: live web results. The queries are recorded (hashed as the input), the ' +
          'redirect URIs as sources.',
        privacy:
          'Queries are written by the model from the conversation and run by Google; ' +
          "searchEntryPoint.renderedContent must be shown to end users under Google's grounding " +
          'terms. Queries reach receipts only hashed.',
      },
      {
        contract: 'wardwright.url_fetch.v1',
        nativeTypes: ['urlContext'],
        fidelity: 'provider_attested',
        requestSchema:
          'A `tools[]` entry {urlContext: {}}; the URLs to read are the ones the prompt holds ' +
          '(up to 20 per request). No tool name, no input schema.',
        eventShape:
          'The candidate carries `urlContextMetadata` {urlMetadata: [{retrievedUrl, ' +
          'urlRetrievalStatus: URL_RETRIEVAL_STATUS_SUCCESS | _ERROR | _PAYWALL | _UNSAFE}]}; ' +
          'with includeServerSideToolInvocations, `toolCall` {toolType: URL_CONTEXT} parts too.',
        citations:
          'None beyond urlMetadata; grounding supports may cite the fetched pages when search ' +
          'grounding is on as well.',
        gaps: [
          'Only the URL and a status come back: no HTTP status, headers, redirects or content, so ' +
            'the receipt cannot hash what the model read.',
          'Google may serve the page from its own cache; when it fetched it is not reported.',
          'Which part of a long page reached the model is not reported.',
        ],
        approval:
          `${NO_PER_CALL_APPROVAL} The model reads only URLs the conversation holds, which ` +
          'Toolgate sees in the request. Read-only, but a URL can carry data out.',
        replay:
          'Re-checkable only by URL: the retrieved URLs and statuses are recorded as sources; no ' +
          'content hash to compare a re-fetch against.',
        privacy:
          'The fetched content enters the model context at Google; the URLs, which may embed ' +
          'data, are visible to Toolgate and recorded as sources.',
      },
      {
        contract: 'wardwright.file_search.v1',
        nativeTypes: ['fileSearch'],
        fidelity: 'provider_attested',
        requestSchema:
          'A `tools[]` entry {fileSearch: {fileSearchStoreNames: [string], metadataFilter?, ' +
          'topK?}} naming File Search stores created through the Files API (Gemini API only).',
        eventShape:
          'The candidate carries `groundingMetadata` with groundingChunks [{retrievedContext: ' +
          '{uri, title, text}}] and groundingSupports, as for search grounding.',
        citations:
          'groundingSupports tie spans of the answer to retrievedContext chunks (title, text).',
        gaps: [
          'The query run against the store is not returned, only the chunks the answer cites.',
          "Which documents the store holds is Google's state, outside the request.",
        ],
        approval: `${NO_PER_CALL_APPROVAL} Read-only.`,
        replay:
          'Not reproducible by Toolgate: the store can change; cited chunk URIs are recorded as ' +
          'sources.',
        privacy: "Documents live in Google's File Search store; cited text returns in the answer.",
      },
      {
        contract: 'wardwright.code_exec.v1',
        nativeTypes: ['codeExecution'],
        fidelity: 'normalized',
        requestSchema:
          'A `tools[]` entry {codeExecution: {}}. The model writes Python and Google runs it in a ' +
          'sandbox, several rounds in one request if it needs them.',
        eventShape:
          'Parts of the model turn: `executableCode` {language: PYTHON, code, id?} then ' +
          '`codeExecutionResult` {outcome: OUTCOME_OK | OUTCOME_FAILED | ' +
          'OUTCOME_DEADLINE_EXCEEDED, output, id?}; plots come back as inlineData parts. Streamed, ' +
          'each part arrives whole in a chunk.',
        citations: 'None.',
        gaps: [
          'The sandbox is not observable: only the code and its output come back, not what it did ' +
            'to files or processes.',
          'output is stdout, or stderr on failure, possibly cut; the receipt hashes the code, not ' +
            'the output.',
          'Results pair with their code by id only when Google sends one; otherwise by order.',
        ],
        approval: `${NO_PER_CALL_APPROVAL} The sandbox has no network access; nothing persists between requests.`,
        replay:
          'The code is recorded (hashed as the input) and could be re-run elsewhere; the ' +
          "provider's environment and its libraries are Google's.",
        privacy:
          'Code and files passed in the conversation run on Google infrastructure; outputs return ' +
          'in the answer.',
      },
      {
        contract: 'wardwright.computer_use.v1',
        nativeTypes: ['computerUse'],
        fidelity: 'opaque',
        requestSchema:
          'A `tools[]` entry {computerUse: {environment: ENVIRONMENT_BROWSER, ' +
          'excludedPredefinedFunctions?}}, with the computer-use model.',
        eventShape:
          '`functionCall` parts naming predefined UI actions (click_at, type_text_at, navigate, …) ' +
          'that the agent executes and answers with functionResponse parts holding a screenshot.',
        citations: 'None.',
        gaps: [
          'The predefined actions are functions the request never declares, so Toolgate withholds ' +
            'their calls as not declared: computer use does not work through Toolgate. An agent ' +
            'can exclude them (excludedPredefinedFunctions) and declare the actions it implements ' +
            'as function declarations, which are then mediated like any function.',
        ],
        approval:
          'Would be fully mediated (client-executed calls), but the predefined calls are withheld ' +
          'today; see gaps.',
        replay: 'Not applicable while the calls are withheld.',
        privacy:
          'Screenshots travel to Google in functionResponse parts; receipts keep their hash.',
      },
      {
        contract: 'wardwright.mcp_tool.v1',
        nativeTypes: ['mcpServers'],
        fidelity: 'opaque',
        requestSchema:
          'A `tools[]` entry {mcpServers: [{name, streamableHttpTransport: {url, headers?}}]}: ' +
          'Google connects to the remote servers itself (Gemini API only).',
        eventShape:
          'Not documented for the REST response: no part or metadata names the MCP calls Google ' +
          'made.',
        citations: 'None.',
        gaps: [
          'Which MCP tools were called, with which arguments and results, is not visible in the ' +
            'response.',
          "The server's tool list is not returned.",
        ],
        approval: `${NO_PER_CALL_APPROVAL} Side effects: whatever the remote tools do.`,
        replay: "Not replayable by Toolgate: the remote server's state is outside its view.",
        privacy:
          'Transport headers (credentials) sit in the request body; arguments chosen by the ' +
          'model leave for a third-party server via Google.',
      },
    ],
  },
};
