import { API_VERSION } from '../resources/envelope.ts';
import type { ProviderProfile } from '../resources/provider-profile.ts';
import { seedObjectMeta } from './capability-contracts.ts';
import { GEMINI_PROFILE } from './gemini-profile.ts';
import { OPENAI_RESPONSES_PROFILE } from './openai-responses-profile.ts';
import { notOffered } from './profile-parts.ts';

/*
 * The seeded fidelity matrix. Each cell says what a receipt can prove for that provider surface,
 * from what the API actually puts on the wire, not from what the feature is called: both
 * providers "do web search", yet one returns the query and every result and the other returns
 * only the links the model chose to cite.
 */

const CHAT_COMPLETIONS_FUNCTION_TOOLS_ONLY =
  'Chat Completions accepts function tools only; provider-hosted tools live in the Responses API';

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const OPENAI_CHAT_PROFILE: ProviderProfile = {
  apiVersion: API_VERSION,
  kind: 'ProviderProfile',
  metadata: seedObjectMeta('ProviderProfile', 'openai-chat'),
  spec: {
    surface: 'openai-chat',
    displayName: 'OpenAI Chat Completions',
    capabilities: [
      {
        contract: 'wardwright.web_search.v1',
        nativeTypes: ['web_search_options'],
        fidelity: 'provider_attested',
        requestSchema:
          'Not a tool: the `web_search_options` request field ({search_context_size?: low | ' +
          'medium | high, user_location?: {type: "approximate", approximate: {country, region, ' +
          'city, timezone}}}), accepted by the dedicated search models (gpt-4o-search-preview, ' +
          'gpt-4o-mini-search-preview, gpt-5-search-api). The model searches on its own; there ' +
          'is no tool call and no tool_choice for it.',
        eventShape:
          'No search event, streamed or not. The assistant message carries `annotations: ' +
          '[{type: "url_citation", url_citation: {url, title, start_index, end_index}}]` next ' +
          'to its content.',
        citations:
          'url_citation annotations only: URL, page title and the character span of the answer ' +
          'that cites it. No quoted source text.',
        gaps: [
          'Search queries are not exposed: what was searched cannot be recorded or checked.',
          'The result list is not exposed: only the URLs the model chose to cite are visible, ' +
            'not what it retrieved or read.',
          'Cannot be filtered per call: Chat Completions has no allowed/blocked domain list ' +
            '(domain filters exist only on the Responses API web_search tool); the only controls ' +
            'are removing web_search_options or changing the model.',
          'The number of searches in a request is not reported.',
          "Citations are the provider's claim; Toolgate cannot check that a cited page says what " +
            'the cited span says.',
        ],
        approval:
          'No per-call approval: searching happens inside the provider before any output. ' +
          'Toolgate can only act before sending (strip web_search_options or block the request). ' +
          'Read-only for the caller.',
        replay:
          "Not replayable: results depend on the live web and OpenAI's index; re-sending the " +
          'request does not reproduce the same citations.',
        privacy:
          'Queries derived from the conversation go from OpenAI to its search backend without ' +
          'passing Toolgate, so they cannot be seen or redacted; a configured user_location is ' +
          'sent to OpenAI.',
      },
      notOffered(
        'wardwright.url_fetch.v1',
        `${CHAT_COMPLETIONS_FUNCTION_TOOLS_ONLY}, and even there page opening is only an action ` +
          'inside web search, not a standalone fetch.',
      ),
      notOffered(
        'wardwright.file_search.v1',
        `${CHAT_COMPLETIONS_FUNCTION_TOOLS_ONLY} (the file_search tool).`,
      ),
      notOffered(
        'wardwright.code_exec.v1',
        `${CHAT_COMPLETIONS_FUNCTION_TOOLS_ONLY} (the code_interpreter tool).`,
      ),
      notOffered(
        'wardwright.computer_use.v1',
        `${CHAT_COMPLETIONS_FUNCTION_TOOLS_ONLY} (the computer_use_preview tool).`,
      ),
      notOffered(
        'wardwright.mcp_tool.v1',
        `${CHAT_COMPLETIONS_FUNCTION_TOOLS_ONLY} (the mcp tool); MCP tools reach this surface ` +
          'only as function tools the agent bridges itself.',
      ),
    ],
  },
};

/** Anthropic Messages (`POST /v1/messages`). */
export const ANTHROPIC_MESSAGES_PROFILE: ProviderProfile = {
  apiVersion: API_VERSION,
  kind: 'ProviderProfile',
  metadata: seedObjectMeta('ProviderProfile', 'anthropic-messages'),
  spec: {
    surface: 'anthropic-messages',
    displayName: 'Anthropic Messages',
    capabilities: [
      {
        contract: 'wardwright.web_search.v1',
        nativeTypes: ['web_search_20250305', 'web_search_20260209'],
        fidelity: 'normalized',
        requestSchema:
          'Server tool in `tools`: {type: "web_search_20250305" | "web_search_20260209", name: ' +
          '"web_search", max_uses?, allowed_domains? | blocked_domains? (not both), ' +
          'user_location?: {type: "approximate", city, region, country, timezone}}. The model ' +
          'decides when to search and may search several times in one request.',
        eventShape:
          '`server_tool_use` {id: "srvtoolu_…", name: "web_search", input: {query}} then ' +
          '`web_search_tool_result` {tool_use_id, content: [{type: "web_search_result", url, ' +
          'title, page_age, encrypted_content}]}, or content {type: ' +
          '"web_search_tool_result_error", error_code}. When streaming, the query arrives as ' +
          'input_json_delta; usage.server_tool_use.web_search_requests counts searches.',
        citations:
          'Always on: text blocks carry `citations: [{type: "web_search_result_location", url, ' +
          'title, cited_text (at most 150 characters), encrypted_index}]`.',
        gaps: [
          'Result content is encrypted (encrypted_content): a receipt proves which URLs came ' +
            'back, not what the model read from them.',
          'The search backend and ranking are not observable; page_age is provider-reported ' +
            'free text.',
          'With web_search_20260209 (dynamic filtering) provider-run code may filter results ' +
            'before the model reads them, so what it read can be a subset of the listed results.',
          'Domain filters apply to the whole tool, not per call; the provider applying them can ' +
            'only be checked after the fact, against the returned URLs.',
        ],
        approval:
          'No per-call approval: searches run server-side within the request. Toolgate can ' +
          'remove the tool or tighten max_uses and domain filters before sending and check ' +
          'returned URLs afterwards, but cannot stop an individual search. Read-only; billed per ' +
          'search.',
        replay:
          'Not replayable: live web results. encrypted_content must be passed back verbatim in ' +
          'later turns and is meaningful only to Anthropic.',
        privacy:
          'Queries are written by the model from the conversation and executed by Anthropic; ' +
          'they appear in server_tool_use and so reach receipts unless redacted. An organization ' +
          'admin must enable web search in the Anthropic Console.',
      },
      {
        contract: 'wardwright.url_fetch.v1',
        nativeTypes: ['web_fetch_20250910', 'web_fetch_20260209'],
        fidelity: 'normalized',
        requestSchema:
          'Server tool in `tools`: {type: "web_fetch_20250910" | "web_fetch_20260209", name: ' +
          '"web_fetch", max_uses?, allowed_domains? | blocked_domains?, citations?: {enabled}, ' +
          'max_content_tokens?}.',
        eventShape:
          '`server_tool_use` {name: "web_fetch", input: {url}} then `web_fetch_tool_result` ' +
          '{tool_use_id, content: {type: "web_fetch_result", url, retrieved_at, content: {type: ' +
          '"document", source: {type: "text" | "base64", media_type, data}, title?}}}, or content ' +
          '{type: "web_fetch_tool_error", error_code}.',
        citations:
          'Optional (citations.enabled): char_location citations with document_index, ' +
          'start_char_index, end_char_index and cited_text.',
        gaps: [
          'No HTTP status, headers or redirect chain: only success or an error_code (e.g. ' +
            'url_not_accessible) is reported, so evidence `status` stays empty and final_url is ' +
            'the URL the provider reports.',
          'Anthropic may serve cached content; retrieved_at is its claim of when the page was ' +
            'fetched.',
          'Content is extracted text (PDFs as base64), possibly truncated by max_content_tokens: ' +
            'the content hash covers what the model received, not the bytes the server sent.',
          'With web_fetch_20260209 (dynamic filtering) provider-run code may filter the content ' +
            'before the model reads it.',
        ],
        approval:
          'No per-call approval: the fetch runs server-side. Anthropic only fetches URLs that ' +
          'already appeared in the conversation (user messages, client tool results, earlier ' +
          'search or fetch results), which Toolgate can check against the request; it can also ' +
          'restrict domains or remove the tool before sending. Read-only, but a URL can carry ' +
          'data out (Anthropic documents the exfiltration risk).',
        replay:
          'Re-checkable, not reproducible: URL and content hash are recorded and a re-fetch can ' +
          'be compared by hash, but live pages change.',
        privacy:
          'Fetched content enters the model context and the response in full; receipts keep its ' +
          'hash only. The URL itself, which may embed data, is visible to Toolgate.',
      },
      notOffered(
        'wardwright.file_search.v1',
        'The Messages API hosts no vector-store search; retrieval, if any, is done by the agent ' +
          'with its own tools.',
      ),
      {
        contract: 'wardwright.code_exec.v1',
        nativeTypes: ['code_execution_20250522', 'code_execution_20250825'],
        fidelity: 'normalized',
        requestSchema:
          'Server tool in `tools`: {type: "code_execution_20250522" (Python) | ' +
          '"code_execution_20250825" (bash and file editing), name: "code_execution"}; optional ' +
          'top-level `container` to reuse a sandbox; input files arrive as container_upload ' +
          'blocks referencing Files API ids.',
        eventShape:
          '`server_tool_use` {name: "code_execution", input: {code}} (20250522), or {name: ' +
          '"bash_code_execution", input: {command}} / {name: "text_editor_code_execution", ' +
          'input: {command, path, …}} (20250825), then `code_execution_tool_result` / ' +
          '`bash_code_execution_tool_result` {content: {stdout, stderr, return_code, content: ' +
          '[{file_id}]}} or `text_editor_code_execution_tool_result`; failures as a ' +
          '*_tool_result_error with error_code. The response names the container {id, expires_at}.',
        citations: 'None.',
        gaps: [
          'The sandbox is not observable: only stdout, stderr and return code come back, not ' +
            'what the code did to files or processes.',
          'Output files are referenced by file_id only; their content needs a separate Files API ' +
            'download, so a receipt cannot hash it from the response.',
          'A reused container carries state across requests that no single receipt shows.',
          'text_editor_code_execution operations (view, create, str_replace) fit the contract ' +
            'only partially: they are file edits, not code.',
          "Anthropic's client-side bash_* and text_editor_* tools are executed by the agent and " +
            'are not covered by this entry.',
        ],
        approval:
          'No per-call approval: code runs server-side before the response returns. Toolgate can ' +
          'only remove the tool before sending. Effects stay in the container, which has no ' +
          'internet access, but persist there for later calls that reuse it.',
        replay:
          "Not reproducible by Toolgate: the code is recorded, but the environment and container state are the provider's, and containers expire.",
        privacy:
          "Code, uploaded files and outputs live in Anthropic's container until it expires. " +
          'Receipts keep stdout and stderr as hashes because they can echo secrets.',
      },
      {
        contract: 'wardwright.computer_use.v1',
        nativeTypes: ['computer_20241022', 'computer_20250124', 'computer_20251124'],
        fidelity: 'pass_through',
        requestSchema:
          'Client tool in `tools` (beta): {type: "computer_20241022" | "computer_20250124" | ' +
          '"computer_20251124", name: "computer", display_width_px, display_height_px, ' +
          'display_number?}, with the matching computer-use beta header. The input schema is ' +
          'built into the model; the agent implements the actions.',
        eventShape:
          'An ordinary `tool_use` block {name: "computer", input: {action, coordinate?: [x, y], ' +
          'text?, …}}; the agent answers in its next request with a `tool_result` holding a ' +
          'screenshot image or an error.',
        citations: 'None.',
        gaps: [
          "Execution happens on the agent's machine: Toolgate sees the requested action and the " +
            'tool_result the agent sends back next turn, not whether or how the action was ' +
            'performed.',
          "The returned screenshot is the agent's claim; it is hashed, not verified.",
          'Action names differ between tool versions (computer_20250124 added scroll, hold_key, ' +
            'wait, triple_click and mouse down/up; computer_20251124 adds zoom); names outside ' +
            'the contract normalize to "other" with native_action kept.',
        ],
        approval:
          'Fully mediated: it is a client tool call, so Toolgate can hide the tool, or block a ' +
          'call before the agent ever receives it. Side effects: anything the controlled desktop ' +
          'can do.',
        replay:
          'Actions are recorded exactly; replaying them against a desktop in another state does ' +
          'not reproduce the outcome.',
        privacy:
          'Screenshots can show anything on screen and travel to Anthropic in tool_result ' +
          'blocks; receipts keep only their hash.',
      },
      {
        contract: 'wardwright.mcp_tool.v1',
        nativeTypes: ['mcp_servers', 'mcp_toolset'],
        fidelity: 'provider_attested',
        requestSchema:
          'MCP connector (beta): the `mcp_servers` request field [{type: "url", url, name, ' +
          'authorization_token?}]; under mcp-client-2025-04-04 each server carries ' +
          'tool_configuration {enabled, allowed_tools}, under mcp-client-2025-11-20 tool ' +
          'selection moves to `tools` entries {type: "mcp_toolset", mcp_server_name, ' +
          'default_config?, configs?}. Remote URL servers only.',
        eventShape:
          '`mcp_tool_use` {id, name, server_name, input} then `mcp_tool_result` {tool_use_id, ' +
          'is_error, content: [{type: "text", text}]}.',
        citations: 'None.',
        gaps: [
          "The remote server's execution is not observable: Toolgate sees the call and the result " +
            'as Anthropic relays them, never the exchange between Anthropic and the server.',
          'The tool list Anthropic obtained from the server is not returned, so which tools the ' +
            'model could have called is not visible in the response.',
          'The result is whatever the server returned, relayed by Anthropic; its integrity rests ' +
            'on both.',
        ],
        approval:
          'No per-call approval: Anthropic calls the server during the request. Toolgate can ' +
          'remove servers or restrict their tools before sending and check each mcp_tool_use ' +
          'against policy afterwards, but cannot stop a call already made. Side effects: ' +
          'whatever the remote tool does.',
        replay: "Not replayable by Toolgate: the remote server's state is outside its view.",
        privacy:
          'authorization_token sits in the request body and must be redacted, never stored. ' +
          'Arguments chosen by the model leave for a third-party server via Anthropic.',
      },
    ],
  },
};

/** The seeded provider profiles, one per supported surface. */
export const SEED_PROVIDER_PROFILES: readonly ProviderProfile[] = [
  OPENAI_CHAT_PROFILE,
  ANTHROPIC_MESSAGES_PROFILE,
  OPENAI_RESPONSES_PROFILE,
  GEMINI_PROFILE,
];
