import { describe, expect, it } from 'vitest';
import { hashLenient } from '../../hash/hash.ts';
import type { JsonObject, JsonValue } from '../../json/json-value.ts';
import { RECEIPT_LIMITS } from '../../receipt/receipt-limits.ts';
import type { RuleIdentity } from '../identity-match.ts';
import { bundleOf } from '../test-fixtures.ts';
import { NO_TOOL_RESULTS } from '../tool-results.ts';
import {
  geminiDeclaration,
  geminiRequest,
  mediateGemini,
  modelTurn,
  responseTurn,
} from './gemini-fixtures.ts';
import { readGeminiHistory } from './gemini-history.ts';

const bundle = bundleOf({
  rules: [{ id: 'alias', action: 'rename', match: { name: 'search' }, alias: 'find' }],
  redact: ['account'],
});
const identity: RuleIdentity = { human: 'alice', session: 's-1', trusted: ['human'] };

function conversation(turns: JsonValue[]): JsonObject {
  return geminiRequest([geminiDeclaration('search'), geminiDeclaration('send')], [], {
    contents: [{ role: 'user', parts: [{ text: 'go' }] }, ...turns],
  });
}

/** The action id the response side gave a call the provider returned as `providerName`. */
function releasedActionId(providerName: string, args: JsonValue): string {
  const mediation = mediateGemini(bundle, conversation([]), { identity });
  return mediation.response.decideCall('', providerName, args).action_id;
}

function results(turns: JsonValue[]) {
  return mediateGemini(bundle, conversation(turns), { identity }).toolResults;
}

describe('Gemini tool results', () => {
  it('reads the functionResponse parts after the last model turn, linked to their calls', () => {
    const read = results([
      modelTurn([['search', { q: 'retry' }]]),
      responseTurn([['search', { output: { hits: 3 } }]]),
    ]);
    expect(read.truncated).toBe(false);
    expect(read.entries).toEqual([
      {
        tool_call_id: '',
        result_hash: hashLenient({ output: { hits: 3 } }),
        is_error: false,
        elapsed_ms: null,
        // Computed as the response side computed it when it released the call: the agent
        // echoes its own name (`search`), the provider called it `find`.
        action_id: releasedActionId('find', { q: 'retry' }),
      },
    ]);
  });

  it('pairs id-less responses with calls of the same name, in order', () => {
    const read = results([
      modelTurn([
        ['search', { q: 'one' }],
        ['send', { to: 'x' }],
        ['search', { q: 'two' }],
      ]),
      responseTurn([
        ['search', { output: 1 }],
        ['search', { output: 2 }],
        ['send', { error: 'bounced' }],
      ]),
    ]);
    expect(read.entries.map((e) => e.action_id)).toEqual([
      releasedActionId('find', { q: 'one' }),
      releasedActionId('find', { q: 'two' }),
      releasedActionId('send', { to: 'x' }),
    ]);
    // Gemini's convention: a response holding `error` reports a failure.
    expect(read.entries.map((e) => e.is_error)).toEqual([false, false, true]);
  });

  it('pairs by id when the response carries one, across earlier model turns too', () => {
    const read = results([
      modelTurn([['search', { q: 'old' }, 'call-1']]),
      responseTurn([['search', { output: 'first' }, 'call-1']]),
      modelTurn([['send', { to: 'y' }, 'call-2']]),
      responseTurn([
        ['send', { output: 'sent' }, 'call-2'],
        ['search', { output: 'late' }, 'call-1'],
      ]),
    ]);
    expect(read.entries.map((e) => [e.tool_call_id, e.action_id])).toEqual([
      ['call-2', releasedActionId('send', { to: 'y' })],
      ['call-1', releasedActionId('find', { q: 'old' })],
    ]);
  });

  it('takes the call’s id for an id-less response to a call that had one', () => {
    const read = results([
      modelTurn([['search', { q: 'x' }, 'call-9']]),
      responseTurn([['search', { output: 'ok' }]]),
    ]);
    expect(read.entries[0]?.tool_call_id).toBe('call-9');
  });

  it('redacts secret keys before hashing, and records where', () => {
    const read = results([
      modelTurn([['send', { to: 'x' }]]),
      responseTurn([['send', { output: { account: 'acct-123', ok: true } }]]),
    ]);
    expect(read.entries[0]?.redacted_result).toEqual(['output.account']);
    expect(read.entries[0]?.result_hash).not.toBe(
      hashLenient({ output: { account: 'acct-123', ok: true } }),
    );
  });

  it('has none without a response after the last model turn, or without contents', () => {
    expect(results([modelTurn([['search', {}]])])).toBe(NO_TOOL_RESULTS);
    expect(results([])).toBe(NO_TOOL_RESULTS);
    const noContents = geminiRequest([geminiDeclaration('search')]);
    delete noContents.contents;
    expect(mediateGemini(bundle, noContents).toolResults).toBe(NO_TOOL_RESULTS);
  });

  it('records at most a receipt’s worth, and says so', () => {
    const many = Array.from({ length: RECEIPT_LIMITS.toolResults + 5 }, (_, i) => [
      'search',
      { output: i },
    ]) as Array<[string, JsonValue]>;
    const read = results([modelTurn([['search', {}]]), responseTurn(many)]);
    expect(read.entries).toHaveLength(RECEIPT_LIMITS.toolResults);
    expect(read.truncated).toBe(true);
  });
});

describe('Gemini history', () => {
  it('lists every functionCall part, with its arguments', () => {
    const history = readGeminiHistory(
      conversation([
        modelTurn([['search', { q: 'a' }]]),
        responseTurn([['search', { output: 1 }]]),
        { role: 'model', parts: [{ text: 'now sending' }, { functionCall: { name: 'send' } }] },
        { role: 'model', parts: [{ functionCall: { args: {} } }, 'junk'] },
      ]),
    );
    expect(history).toEqual([
      { name: 'search', args: { q: 'a' } },
      { name: 'send', args: {} },
    ]);
  });
});
