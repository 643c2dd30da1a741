import { API_VERSION } from '../resources/envelope.ts';
import type { ProviderProfile } from '../resources/provider-profile.ts';
import { seedObjectMeta } from './capability-contracts.ts';
import { notOffered } from './profile-parts.ts';

/**
 * OpenAI Responses (`POST /v1/responses`): where OpenAI's provider-hosted tools live. Every
 * hosted tool reports what it did as a typed output item (and, streamed, as its own
 * `response.<item>.*` events), so most cells prove more than Chat Completions can; several
 * details only come back when the request asks for them with `include`.
 */
export const OPENAI_RESPONSES_PROFILE: ProviderProfile = {
  apiVersion: API_VERSION,
  kind: 'ProviderProfile',
  metadata: seedObjectMeta('ProviderProfile', 'openai-responses'),
  spec: {
    surface: 'openai-responses',
    displayName: 'OpenAI Responses',
    capabilities: [
      {
        contract: 'wardwright.web_search.v1',
        nativeTypes: [
          'web_search',
          'web_search_2025_08_26',
          'web_search_preview',
          'web_search_preview_2025_03_11',
        ],
        fidelity: 'normalized',
        requestSchema:
          'Hosted tool in `tools`: {type: "web_search" | "web_search_2025_08_26", filters?: ' +
          '{allowed_domains}, search_context_size?: low | medium | high, user_location?: {type: ' +
          '"approximate", city, country, region, timezone}}, or the preview {type: ' +
          '"web_search_preview" | "web_search_preview_2025_03_11", search_context_size?, ' +
          'user_location?}. tool_choice may force it ({type: "web_search_preview"}) or list it ' +
          'in {type: "allowed_tools"}.',
        eventShape:
          'A `web_search_call` output item {id: "ws_…", status, action: {type: "search", query, ' +
          'sources?: [{type: "url", url}]} | {type: "open_page", url} | {type: "find", url, ' +
          'pattern}}; streamed as response.output_item.added, response.web_search_call.' +
          'in_progress / .searching / .completed, response.output_item.done. action.sources ' +
          'only when the request asks for include: ["web_search_call.action.sources"].',
        citations:
          'The message\'s output_text parts carry `annotations: [{type: "url_citation", url, ' +
          'title, start_index, end_index}]` (streamed as response.output_text.annotation.added).',
        gaps: [
          'The result list (action.sources) is returned only with include: ' +
            '["web_search_call.action.sources"]; otherwise only the queries and the cited URLs ' +
            'are visible.',
          'What the model read from a page is not returned: no page content, no snippets.',
          'The search backend and ranking are not observable; allowed_domains filtering is the ' +
            "provider's claim, checkable only against the returned URLs.",
          "Citations are the provider's claim; Toolgate cannot check that a cited page says what " +
            'the cited span says.',
        ],
        approval:
          'No per-call approval: searches run inside the provider during the request. Toolgate ' +
          'can remove the tool (or its tool_choice) before sending and withhold the ' +
          'web_search_call items and citations from the agent, but cannot stop a search. ' +
          'Read-only for the caller.',
        replay:
          'Not replayable: live web results; the query is recorded (hashed) and can be ' +
          're-run, but not reproduced.',
        privacy:
          "Queries are written by the model from the conversation and run by OpenAI's search; " +
          'they appear in web_search_call items and reach receipts only as hashes. A configured ' +
          'user_location is sent to OpenAI.',
      },
      notOffered(
        'wardwright.url_fetch.v1',
        'The Responses API has no standalone fetch tool: opening a page is the open_page ' +
          'action of a web_search_call, recorded under web search.',
      ),
      {
        contract: 'wardwright.file_search.v1',
        nativeTypes: ['file_search'],
        fidelity: 'normalized',
        requestSchema:
          'Hosted tool in `tools`: {type: "file_search", vector_store_ids: [...], filters?, ' +
          'max_num_results?, ranking_options?: {ranker, score_threshold}} over vector stores ' +
          'of the caller’s own uploaded files.',
        eventShape:
          'A `file_search_call` output item {id: "fs_…", status, queries: [...], results?: ' +
          '[{file_id, filename, score, text, attributes}]}; streamed as response.file_search_call.' +
          'in_progress / .searching / .completed. results only with include: ' +
          '["file_search_call.results"].',
        citations:
          'output_text annotations `{type: "file_citation", file_id, filename, index}`: which ' +
          'file a span of the answer cites, not which passage.',
        gaps: [
          'Results (the retrieved chunks, scores, file ids) come back only with include: ' +
            '["file_search_call.results"]; without it only the queries are visible.',
          'Chunking, embedding and ranking happen inside the vector store and are not observable.',
          'The vector store is named in the request, but its contents can change between ' +
            'requests: a receipt proves which files answered, not what they held.',
        ],
        approval:
          'No per-call approval: searches run inside the provider during the request. Toolgate ' +
          'can remove the tool or restrict vector_store_ids before sending. Read-only.',
        replay:
          'Re-runnable against the same vector store; reproducible only while the store and ' +
          'its files are unchanged.',
        privacy:
          'Uploaded files and vector stores live at OpenAI; retrieved text enters the model ' +
          'context. Receipts keep query hashes and file ids, never file text.',
      },
      {
        contract: 'wardwright.code_exec.v1',
        nativeTypes: ['code_interpreter'],
        fidelity: 'normalized',
        requestSchema:
          'Hosted tool in `tools`: {type: "code_interpreter", container: "cntr_…" | {type: ' +
          '"auto", file_ids?, memory_limit?, network_policy?}}. The shell tool with environment ' +
          '{type: "container_auto" | "container_reference"} also runs commands in a hosted ' +
          'container and is recorded under this contract.',
        eventShape:
          'A `code_interpreter_call` output item {id: "ci_…", status, code, container_id, ' +
          'outputs?: [{type: "logs", logs} | {type: "image", url}]}; streamed as ' +
          'response.code_interpreter_call.in_progress, response.code_interpreter_call_code.delta ' +
          '/ .done, .interpreting, .completed. outputs only with include: ' +
          '["code_interpreter_call.outputs"]. A hosted shell reports `shell_call` {action: ' +
          '{commands}, environment: {type: "container_reference", container_id}} and ' +
          '`shell_call_output`.',
        citations:
          'None; files the code wrote are cited as `container_file_citation` {container_id, ' +
          'file_id, filename}.',
        gaps: [
          'The sandbox is not observable: the code and (with include) its logs come back, not ' +
            'what it did to files or processes.',
          'Output files live in the container and are referenced by id; their content needs a ' +
            'separate Containers API download.',
          'A container (container_id) is reused across requests and keeps state no single ' +
            'receipt shows; containers expire after inactivity.',
        ],
        approval:
          'No per-call approval: code runs inside the provider before the response returns. ' +
          'Toolgate can only remove the tool before sending and withhold the items after. ' +
          'Effects stay in the container (network as its network_policy allows).',
        replay:
          'Not reproducible by Toolgate: the code is recorded (hashed), the container state and ' +
          "environment are OpenAI's.",
        privacy:
          "Code, files and outputs stay in OpenAI's container until it expires. Receipts keep " +
          'the code as a hash and the container id.',
      },
      {
        contract: 'wardwright.computer_use.v1',
        nativeTypes: ['computer_use_preview', 'computer'],
        fidelity: 'pass_through',
        requestSchema:
          'Tool in `tools`: {type: "computer_use_preview", display_width, display_height, ' +
          'environment: windows | mac | linux | ubuntu | browser} or {type: "computer"}. The ' +
          'agent implements the actions.',
        eventShape:
          'A `computer_call` output item {id, call_id, action: {type: click | double_click | ' +
          'drag | keypress | move | screenshot | scroll | type | wait, …} (or actions: [...]), ' +
          'pending_safety_checks: [{id, code, message}]}; the agent answers next turn with a ' +
          '`computer_call_output` {call_id, output: {type: "computer_screenshot", image_url | ' +
          'file_id}, acknowledged_safety_checks?}.',
        citations: 'None.',
        gaps: [
          "Execution happens on the agent's machine: Toolgate sees the requested action and " +
            'the screenshot the agent sends back next turn, not whether the action was performed.',
          "The returned screenshot is the agent's claim; it is hashed, not verified.",
          'pending_safety_checks are passed through for the agent to acknowledge; Toolgate does ' +
            'not evaluate them.',
        ],
        approval:
          'Fully mediated: each computer_call is a call the agent executes, so Toolgate can hide ' +
          'the tool or withhold a call (deny, require_approval, rate_limit) before the agent ' +
          'receives it. Side effects: anything the controlled desktop can do.',
        replay:
          'Actions are recorded exactly; replaying them against a desktop in another state does ' +
          'not reproduce the outcome.',
        privacy:
          'Screenshots can show anything on screen and travel to OpenAI in computer_call_output ' +
          'items; receipts keep only their hash.',
      },
      {
        contract: 'wardwright.mcp_tool.v1',
        nativeTypes: ['mcp'],
        fidelity: 'provider_attested',
        requestSchema:
          'Hosted tool in `tools`: {type: "mcp", server_label, server_url | connector_id, ' +
          'authorization?, headers?, allowed_tools?: [names] | {tool_names, read_only}, ' +
          'require_approval?: "always" | "never" | {always: {tool_names}, never: {tool_names}}, ' +
          'server_description?}. tool_choice may name one ({type: "mcp", server_label, name?}).',
        eventShape:
          '`mcp_list_tools` {server_label, tools: [{name, input_schema, description, ' +
          'annotations}], error?}, then per call `mcp_call` {id, server_label, name, arguments, ' +
          'output, error, approval_request_id?}; with require_approval an ' +
          '`mcp_approval_request` {id, server_label, name, arguments} that the agent answers ' +
          'next turn with an `mcp_approval_response` {approval_request_id, approve}. Streamed as ' +
          'response.mcp_list_tools.*, response.mcp_call.* and response.mcp_call_arguments.*.',
        citations: 'None.',
        gaps: [
          "The remote server's execution is not observable: Toolgate sees the call, arguments " +
            'and output as OpenAI relays them, never the exchange between OpenAI and the server.',
          'Without require_approval the provider calls the server during the request: a call ' +
            'to a tool the policy hides is withheld from the agent and receipted as blocked, but ' +
            'it has already run.',
          'After previous_response_id the mcp_approval_request being answered is stored at ' +
            'OpenAI: an mcp_approval_response names only its id, so the gateway cannot tell ' +
            'which tool it approves.',
        ],
        approval:
          'With require_approval, OpenAI waits for the agent: Toolgate withholds approval ' +
          'requests for hidden tools or servers, so the agent can never approve them. Without ' +
          'it, calls run during the request and Toolgate can only remove the server before ' +
          'sending. Side effects: whatever the remote tool does.',
        replay: "Not replayable by Toolgate: the remote server's state is outside its view.",
        privacy:
          'authorization and headers sit in the request body: receipts and stored schemas keep ' +
          'them redacted, never hashed. Arguments chosen by the model leave for a third-party ' +
          'server via OpenAI.',
      },
    ],
  },
};
