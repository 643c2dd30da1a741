import { describe, expect, it } from 'vitest';
import { normalizeAction, parseArguments } from './action.ts';
import { MediationMemo } from './mediation-memo.ts';
import { resolveMetaCall } from './meta-tools.ts';
import { compileNamePattern } from './name-pattern.ts';
import { assignProviderNames, isProviderLegalName } from './provider-names.ts';
import { REDACTED, redactValue } from './redact.ts';

describe('compileNamePattern', () => {
  it.each([
    ['search', 'search', true],
    ['search', 'search_code', false],
    ['search*', 'search_code', true],
    ['*_code', 'search_code', true],
    ['github/*', 'github/create_issue', true],
    ['github/*', 'gitlab/create_issue', false],
    ['tool_?', 'tool_1', true],
    ['tool_?', 'tool_12', false],
    ['tool_[12]', 'tool_2', true],
    ['tool_[!12]', 'tool_2', false],
    ['tool_[!12]', 'tool_3', true],
    ['a.b', 'axb', false],
    ['/^create_/', 'create_pull_request', true],
    ['/^create_/', 'xcreate_', false],
    ['/SEARCH/i', 'web_search', true],
    ['/a/g', 'a', true],
  ])('%s vs %s → %s', (pattern, name, expected) => {
    const match = compileNamePattern(pattern);
    expect(match(name)).toBe(expected);
    expect(match(name)).toBe(expected); // a stateful /g regex would flip here
  });
});

describe('assignProviderNames', () => {
  it('keeps legal names and aliases illegal ones without collisions', () => {
    const names = assignProviderNames(['ok', 'a/b', 'a_b', 'a b', 'ok']);
    expect(names[0]).toBe('ok');
    expect(names[2]).toBe('a_b');
    expect(names[4]).toBe('ok'); // legal duplicates are left to deduplication
    expect(names[1]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names[3]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names[1]).not.toBe(names[3]);
    expect(names.every(isProviderLegalName)).toBe(true);
  });

  it('is a pure function of the list', () => {
    const input = ['srv/tool', 'x'.repeat(80), 'émoji 🚀', ''];
    expect(assignProviderNames(input)).toEqual(assignProviderNames([...input]));
    expect(assignProviderNames(input).every(isProviderLegalName)).toBe(true);
  });
});

describe('redactValue', () => {
  it('redacts keys anywhere and anchored paths, reporting what it redacted', () => {
    const input = {
      token: 'a',
      nested: { token: 'b', keep: 1 },
      auth: { pin: '1' },
      list: [{ token: 'c' }],
    };
    const { value, redacted } = redactValue(input, ['token', 'auth.pin']);
    expect(value).toEqual({
      token: REDACTED,
      nested: { token: REDACTED, keep: 1 },
      auth: { pin: REDACTED },
      list: [{ token: REDACTED }],
    });
    expect(redacted).toEqual(['token', 'nested.token', 'auth.pin', 'list[0].token']);
    expect(input.token).toBe('a');
  });

  it('returns the same object when nothing matches', () => {
    const input = { a: [1, { b: 2 }] };
    expect(redactValue(input, ['token']).value).toBe(input);
  });
});

describe('normalizeAction (AARM)', () => {
  it('gives the same call the same id, whatever the key order or JSON spelling', () => {
    const a = normalizeAction(
      { name: 'search', arguments: '{"q":"x","n":1}' },
      { identity: { human: 'alice' } },
    );
    const b = normalizeAction(
      { name: 'search', arguments: { n: 1.0, q: 'x' } },
      { identity: { human: 'alice' } },
    );
    expect(a.action_id).toBe(b.action_id);
    expect(a.action_id).toMatch(/^act_[0-9a-f]{32}$/);
  });

  it.each([
    [{ name: 'search', arguments: '{"q":"y"}' }, { human: 'alice' }],
    [{ name: 'other', arguments: '{"q":"x"}' }, { human: 'alice' }],
    [{ name: 'search', arguments: '{"q":"x"}' }, { human: 'bob' }],
  ])('changes the id when tool, arguments or identity change (%j)', (call, identity) => {
    const base = normalizeAction(
      { name: 'search', arguments: '{"q":"x"}' },
      { identity: { human: 'alice' } },
    );
    expect(normalizeAction(call, { identity }).action_id).not.toBe(base.action_id);
  });

  it('resolves a meta-tool before naming the action, and records context', () => {
    const action = normalizeAction(
      {
        name: 'mcp_tool',
        arguments: {
          server: 'github',
          tool: 'create_issue',
          arguments: { title: 't', token: 's3cret' },
        },
      },
      { identity: { session: 's1' }, priorActions: ['act_1', 'act_2'] },
    );
    expect(action).toMatchObject({
      tool: 'github/create_issue',
      server: 'github',
      via: 'mcp_tool',
      arguments: { title: 't', token: REDACTED },
      context: { session: 's1', sequence: 2, prior_action_ids: ['act_1', 'act_2'] },
      redacted_paths: ['token'],
    });
    const direct = normalizeAction(
      { name: 'github/create_issue', arguments: { title: 't', token: 'other' } },
      { identity: { session: 's1' } },
    );
    expect(direct.action_id).toBe(action.action_id); // same real action, same id
  });

  it('parses arguments leniently', () => {
    expect(parseArguments('')).toEqual({});
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseArguments('{broken')).toBe('{broken');
    expect(parseArguments(undefined)).toEqual({});
  });
});

describe('resolveMetaCall', () => {
  const metas = [
    { name: 'mcp_tool', serverField: 'server', toolField: 'tool', argumentsField: 'arguments' },
  ];
  it.each([
    ['mcp_tool', { server: 's', tool: 't' }, 's/t'],
    ['mcp_tool', { server: 's' }, undefined],
    ['mcp_tool', { tool: 's/t' }, 's/t'],
    ['mcp_tool', 'not an object', undefined],
    ['other', { server: 's', tool: 't' }, undefined],
  ])('%s %j → %s', (name, args, expected) => {
    expect(resolveMetaCall(name, args as never, metas)?.qualifiedName).toBe(expected);
  });
});

describe('MediationMemo', () => {
  it('returns the canonical hash, hits on repeats and stays bounded', () => {
    const cache = new MediationMemo(2);
    const a = cache.hashOf({ b: 1, a: 2 });
    expect(a).toBe(cache.hashOf({ a: 2, b: 1 })); // different text, same canonical hash
    expect(cache.size).toBe(2);
    cache.hashOf({ c: 3 });
    expect(cache.size).toBe(2);
    expect(cache.hashOf({ bad: '\ud800' })).toBeUndefined();
    expect(new MediationMemo(0).hashOf({ a: 2, b: 1 })).toBe(a);
  });

  it('finds a catalog by its text, and by the frozen list it is the text of', () => {
    const memo = new MediationMemo(16);
    let computed = 0;
    const compute = () => ({ run: ++computed });
    const list = Object.freeze([Object.freeze({ name: 'a' })]);
    const text = JSON.stringify(list);
    const first = memo.catalog({ text }, 'v1', compute);
    // The same text as another string, with its list: a hit, and the list now finds it.
    const sameText = JSON.parse(JSON.stringify(text)) as string;
    expect(memo.catalog({ text: sameText, list }, 'v1', compute)).toBe(first);
    expect(memo.catalog({ text: sameText, list }, 'v1', compute)).toBe(first);
    // Another variant of the same catalog is its own outcome, found by list or text alike.
    const second = memo.catalog({ text, list }, 'v2', compute);
    expect(second).not.toBe(first);
    expect(memo.catalog({ text }, 'v2', compute)).toBe(second);
    expect(computed).toBe(2);
    expect(Object.isFrozen(first)).toBe(true);
    // No memo: computed every time.
    const none = new MediationMemo(0);
    none.catalog({ text, list }, 'v1', compute);
    none.catalog({ text, list }, 'v1', compute);
    expect(computed).toBe(4);
  });
});
