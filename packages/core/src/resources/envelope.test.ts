import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BadRequestError, ValidationError } from '../errors.ts';
import { parseOrThrow } from '../validate.ts';
import {
  Annotations,
  API_VERSION,
  Condition,
  Conditions,
  defineResource,
  defineResourceInput,
  findCondition,
  formatLabelSelector,
  LabelSelector,
  Labels,
  matchesLabelSelector,
  ObjectMeta,
  ObjectMetaInput,
  parseLabelSelector,
  ResourceName,
} from './envelope.ts';

/** The `field` of every cause parseOrThrow reports, or [] when the input is valid. */
function failingFields(schema: z.ZodType, input: unknown): string[] {
  try {
    parseOrThrow(schema, input, 'Test');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.causes.map((cause) => cause.field);
  }
}

const Widget = defineResource(
  'Widget',
  z.object({ size: z.number().int().min(1) }).strict(),
  z.object({ conditions: Conditions }),
);
const WidgetInput = defineResourceInput('Widget', z.object({ size: z.number() }).strict());

const META = {
  name: 'w1',
  uid: '6f1c2a4e-0000-4000-8000-000000000001',
  generation: 1,
  resourceVersion: '17',
  creationTimestamp: '2026-01-01T00:00:00Z',
};
const widget = (overrides: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'Widget',
  metadata: { ...META, ...meta },
  spec: { size: 3 },
  ...overrides,
});

describe('ResourceName', () => {
  it.each(['a', '0', 'openai-chat', 'wardwright.web_search.v1', 'gw-eu-1', 'a_b', 'a'.repeat(253)])(
    'accepts %j',
    (name) => {
      expect(ResourceName.safeParse(name).success).toBe(true);
      expect(failingFields(Widget, widget({}, { name }))).toEqual([]);
    },
  );

  it.each(['', 'A', 'Gateway', '-a', 'a-', '_a', 'a_', '.a', 'a b', 'a/b', 'é', 'a'.repeat(254)])(
    'rejects %j at metadata.name',
    (name) => {
      expect(failingFields(Widget, widget({}, { name }))).toEqual(['metadata.name']);
    },
  );

  it('explains the rule in the message', () => {
    const result = ResourceName.safeParse('Bad_Name');
    expect(result.error?.issues[0]?.message).toMatch(/lowercase alphanumeric/);
  });
});

describe('Labels', () => {
  it.each<Record<string, string>>([
    {},
    { app: 'web' },
    { 'toolgate.dev/env': 'prod' },
    { 'a.b-c.example.com/Name_x.y-z': 'V_1.2-3' },
    { tier: '' },
    { ['a'.repeat(63)]: 'b'.repeat(63) },
    { [`${'p'.repeat(253)}/n`]: 'v' },
  ])('accepts %j', (labels) => {
    expect(failingFields(Labels, labels)).toEqual([]);
  });

  it.each<[Record<string, string>, string]>([
    [{ '-app': 'x' }, '-app'],
    [{ 'app-': 'x' }, 'app-'],
    [{ '': 'x' }, '(root)'],
    [{ 'a b': 'x' }, 'a b'],
    [{ ['a'.repeat(64)]: 'x' }, 'a'.repeat(64)],
    [{ 'Example.com/app': 'x' }, 'Example.com/app'],
    [{ '/app': 'x' }, '/app'],
    [{ 'example.com/': 'x' }, 'example.com/'],
    [{ 'a/b/c': 'x' }, 'a/b/c'],
    [{ [`${'p'.repeat(254)}/n`]: 'x' }, `${'p'.repeat(254)}/n`],
    [{ app: '-x' }, 'app'],
    [{ app: 'x y' }, 'app'],
    [{ app: 'v'.repeat(64) }, 'app'],
  ])('rejects %j at its key', (labels, field) => {
    expect(failingFields(Labels, labels)).toEqual([field]);
  });

  it('reports the key under metadata.labels', () => {
    expect(failingFields(Widget, widget({}, { labels: { ok: 'yes', 'bad key': 'x' } }))).toEqual([
      'metadata.labels.bad key',
    ]);
  });

  it('rejects non-string values', () => {
    expect(failingFields(Widget, widget({}, { labels: { replicas: 3 } }))).toEqual([
      'metadata.labels.replicas',
    ]);
  });
});

describe('Annotations', () => {
  it('accepts free-form values', () => {
    const annotations = {
      'toolgate.dev/applied-from': 'git@example.com:ops/policies.git#a1b2 ✓\n',
    };
    expect(failingFields(Annotations, annotations)).toEqual([]);
  });

  it('rejects invalid keys at the key', () => {
    expect(failingFields(Annotations, { 'not a key': 'x' })).toEqual(['not a key']);
  });

  it('caps the total size at 256 KiB', () => {
    expect(failingFields(Annotations, { big: 'x'.repeat(256 * 1024) })).toEqual(['(root)']);
    expect(failingFields(Annotations, { big: 'x'.repeat(256 * 1024 - 3) })).toEqual([]);
  });
});

describe('ObjectMeta', () => {
  it('defaults labels and annotations to {}', () => {
    const meta = parseOrThrow(ObjectMeta, META, 'Test');
    expect(meta.labels).toEqual({});
    expect(meta.annotations).toEqual({});
  });

  it.each<[Record<string, unknown>, string]>([
    [{ generation: 0 }, 'metadata.generation'],
    [{ generation: 1.5 }, 'metadata.generation'],
    [{ generation: '1' }, 'metadata.generation'],
    [{ resourceVersion: '' }, 'metadata.resourceVersion'],
    [{ resourceVersion: 17 }, 'metadata.resourceVersion'],
    [{ uid: '' }, 'metadata.uid'],
    [{ creationTimestamp: 'yesterday' }, 'metadata.creationTimestamp'],
    [{ creationTimestamp: '2026-01-01' }, 'metadata.creationTimestamp'],
    [{ creationTimestamp: '2026-01-01T00:00:00+02:00' }, 'metadata.creationTimestamp'],
    [{ name: undefined }, 'metadata.name'],
  ])('rejects %j at %s', (meta, field) => {
    expect(failingFields(Widget, widget({}, meta))).toEqual([field]);
  });

  it('accepts fractional seconds', () => {
    const meta = { creationTimestamp: '2026-01-01T00:00:00.123Z' };
    expect(failingFields(Widget, widget({}, meta))).toEqual([]);
  });
});

describe('ObjectMetaInput', () => {
  it('needs only a name', () => {
    expect(parseOrThrow(ObjectMetaInput, { name: 'w1' }, 'Test')).toEqual({ name: 'w1' });
  });

  it('accepts the server-owned fields of a stored object, so get output can be applied', () => {
    expect(failingFields(ObjectMetaInput, { ...META, labels: { a: 'b' } })).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{}, 'name'],
    [{ name: 'W1' }, 'name'],
    [{ name: 'w1', resourceVersion: '' }, 'resourceVersion'],
    [{ name: 'w1', labels: { '-': 'x' } }, 'labels.-'],
  ])('rejects %j at %s', (meta, field) => {
    expect(failingFields(ObjectMetaInput, meta)).toEqual([field]);
  });
});

describe('Condition', () => {
  const synced = {
    type: 'Synced',
    status: 'False',
    reason: 'BundleRejected',
    message: 'spec.rules[0].id: duplicate rule id',
    lastTransitionTime: '2026-01-02T03:04:05Z',
    observedGeneration: 4,
  };

  it('accepts a valid condition, with or without observedGeneration', () => {
    expect(failingFields(Condition, synced)).toEqual([]);
    expect(failingFields(Condition, { ...synced, observedGeneration: undefined })).toEqual([]);
    expect(failingFields(Condition, { ...synced, message: '' })).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ type: 'synced' }, 'status.conditions[0].type'],
    [{ type: 'Bundle Synced' }, 'status.conditions[0].type'],
    [{ status: 'true' }, 'status.conditions[0].status'],
    [{ status: true }, 'status.conditions[0].status'],
    [{ reason: 'bundle_rejected' }, 'status.conditions[0].reason'],
    [{ reason: '' }, 'status.conditions[0].reason'],
    [{ message: undefined }, 'status.conditions[0].message'],
    [{ lastTransitionTime: 'now' }, 'status.conditions[0].lastTransitionTime'],
    [{ observedGeneration: -1 }, 'status.conditions[0].observedGeneration'],
  ])('rejects %j at %s', (change, field) => {
    const input = widget({ status: { conditions: [{ ...synced, ...change }] } });
    expect(failingFields(Widget, input)).toEqual([field]);
  });

  it('allows one condition per type', () => {
    const input = widget({ status: { conditions: [synced, { ...synced, status: 'True' }] } });
    expect(failingFields(Widget, input)).toEqual(['status.conditions[1].type']);
  });

  it('finds a condition by type', () => {
    const conditions = parseOrThrow(Conditions, [synced], 'Test');
    expect(findCondition(conditions, 'Synced')?.reason).toBe('BundleRejected');
    expect(findCondition(conditions, 'Ready')).toBeUndefined();
    expect(findCondition(undefined, 'Synced')).toBeUndefined();
  });
});

describe('LabelSelector schema', () => {
  it.each<unknown>([
    {},
    { matchLabels: { env: 'prod' } },
    { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] },
    { matchExpressions: [{ key: 'env', operator: 'NotIn', values: [''] }] },
    { matchExpressions: [{ key: 'env', operator: 'Exists' }] },
    { matchExpressions: [{ key: 'env', operator: 'DoesNotExist', values: [] }] },
  ])('accepts %j', (selector) => {
    expect(failingFields(LabelSelector, selector)).toEqual([]);
  });

  it.each<[unknown, string]>([
    [{ matchExpressions: [{ key: 'env', operator: 'In' }] }, 'matchExpressions[0].values'],
    [
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: [] }] },
      'matchExpressions[0].values',
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['x'] }] },
      'matchExpressions[0].values',
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'DoesNotExist', values: ['x'] }] },
      'matchExpressions[0].values',
    ],
    [
      { matchExpressions: [{ key: 'env', operator: 'Gt', values: ['1'] }] },
      'matchExpressions[0].operator',
    ],
    [{ matchExpressions: [{ key: 'bad key', operator: 'Exists' }] }, 'matchExpressions[0].key'],
    [
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['ok', 'not ok'] }] },
      'matchExpressions[0].values[1]',
    ],
    [{ matchLabels: { env: 'not ok' } }, 'matchLabels.env'],
    [{ matchLabel: { env: 'prod' } }, '(root)'],
  ])('rejects %j at %s', (selector, field) => {
    expect(failingFields(LabelSelector, selector)).toEqual([field]);
  });
});

describe('matchesLabelSelector', () => {
  const labels = { env: 'prod', region: 'eu', tier: '' };
  const expr = (key: string, operator: string, values?: string[]) =>
    ({ matchExpressions: [{ key, operator, values }] }) as LabelSelector;

  it.each<[string, LabelSelector, Record<string, string>, boolean]>([
    ['empty selector, labels', {}, labels, true],
    ['empty selector, no labels', {}, {}, true],
    ['empty lists', { matchLabels: {}, matchExpressions: [] }, {}, true],
    ['matchLabels equal', { matchLabels: { env: 'prod' } }, labels, true],
    ['matchLabels all of', { matchLabels: { env: 'prod', region: 'eu' } }, labels, true],
    ['matchLabels one differs', { matchLabels: { env: 'prod', region: 'us' } }, labels, false],
    ['matchLabels missing', { matchLabels: { zone: 'a' } }, labels, false],
    ['matchLabels empty value present', { matchLabels: { tier: '' } }, labels, true],
    ['matchLabels empty value absent', { matchLabels: { tier: '' } }, {}, false],
    ['In hit', expr('env', 'In', ['staging', 'prod']), labels, true],
    ['In miss', expr('env', 'In', ['staging']), labels, false],
    ['In missing label', expr('zone', 'In', ['a']), labels, false],
    ['NotIn hit', expr('env', 'NotIn', ['prod']), labels, false],
    ['NotIn miss', expr('env', 'NotIn', ['staging']), labels, true],
    ['NotIn missing label matches', expr('zone', 'NotIn', ['a']), labels, true],
    ['Exists present', expr('env', 'Exists'), labels, true],
    ['Exists empty value', expr('tier', 'Exists'), labels, true],
    ['Exists absent', expr('zone', 'Exists'), labels, false],
    ['DoesNotExist absent', expr('zone', 'DoesNotExist'), labels, true],
    ['DoesNotExist present', expr('env', 'DoesNotExist'), labels, false],
    ['prototype keys are not labels', expr('constructor', 'Exists'), labels, false],
    [
      'matchLabels and expressions are ANDed',
      {
        matchLabels: { env: 'prod' },
        matchExpressions: [{ key: 'region', operator: 'In', values: ['us'] }],
      },
      labels,
      false,
    ],
  ])('%s', (_name, selector, input, expected) => {
    expect(matchesLabelSelector(selector, input)).toBe(expected);
  });
});

describe('parseLabelSelector', () => {
  it.each<[string, LabelSelector]>([
    ['', {}],
    ['   ', {}],
    ['a=b', { matchLabels: { a: 'b' } }],
    ['a==b', { matchLabels: { a: 'b' } }],
    ['a=', { matchLabels: { a: '' } }],
    [' a = b , c = d ', { matchLabels: { a: 'b', c: 'd' } }],
    [
      'a=b,a=c',
      { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['c'] }] },
    ],
    ['c!=d', { matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['d'] }] }],
    ['e in (x,y)', { matchExpressions: [{ key: 'e', operator: 'In', values: ['x', 'y'] }] }],
    ['e in ( x , y )', { matchExpressions: [{ key: 'e', operator: 'In', values: ['x', 'y'] }] }],
    ['e in (x,)', { matchExpressions: [{ key: 'e', operator: 'In', values: ['x', ''] }] }],
    ['e in ()', { matchExpressions: [{ key: 'e', operator: 'In', values: [''] }] }],
    ['f notin (z)', { matchExpressions: [{ key: 'f', operator: 'NotIn', values: ['z'] }] }],
    ['g', { matchExpressions: [{ key: 'g', operator: 'Exists' }] }],
    ['!h', { matchExpressions: [{ key: 'h', operator: 'DoesNotExist' }] }],
    ['! h', { matchExpressions: [{ key: 'h', operator: 'DoesNotExist' }] }],
    ['in in (in)', { matchExpressions: [{ key: 'in', operator: 'In', values: ['in'] }] }],
    [
      'toolgate.dev/env=prod,example.com/tier',
      {
        matchLabels: { 'toolgate.dev/env': 'prod' },
        matchExpressions: [{ key: 'example.com/tier', operator: 'Exists' }],
      },
    ],
    [
      'a=b,c!=d,e in (x,y),f notin (z),g,!h',
      {
        matchLabels: { a: 'b' },
        matchExpressions: [
          { key: 'c', operator: 'NotIn', values: ['d'] },
          { key: 'e', operator: 'In', values: ['x', 'y'] },
          { key: 'f', operator: 'NotIn', values: ['z'] },
          { key: 'g', operator: 'Exists' },
          { key: 'h', operator: 'DoesNotExist' },
        ],
      },
    ],
  ])('parses %j', (text, expected) => {
    const selector = parseLabelSelector(text);
    expect(selector).toEqual(expected);
    expect(LabelSelector.safeParse(selector).success).toBe(true);
  });

  it.each([
    ['a=b,', /expected a label key, found end of input/],
    [',a', /expected a label key, found ","/],
    ['a,,b', /expected a label key/],
    ['a b', /expected an operator/],
    ['a in', /expected "\(", found end of input/],
    ['a in (b', /expected "," or "\)", found end of input/],
    ['a in (b c)', /expected "," or "\)"/],
    ['a notin b', /expected "\("/],
    ['a=b=c', /expected "," or end/],
    ['a=b c', /expected "," or end/],
    ['!', /expected a label key, found end of input/],
    ['!a=b', /expected "," or end/],
    ['(a)', /expected a label key, found "\("/],
    ['a>1', /unsupported operator ">"/],
    ['a<1', /unsupported operator "<"/],
    ['-a', /key "-a": name part must be/],
    ['Example.com/a', /key "Example.com\/a": prefix part/],
    ['a=-b', /value "-b"/],
    ['a in (ok,-bad)', /value "-bad"/],
    [`a=${'v'.repeat(64)}`, /value "v+"/],
  ])('rejects %j', (text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(BadRequestError);
    expect(() => parseLabelSelector(text)).toThrow(message);
  });

  it('names the selector in the error', () => {
    expect(() => parseLabelSelector('a in')).toThrow('invalid label selector "a in": ');
  });
});

describe('formatLabelSelector', () => {
  it.each<[LabelSelector, string]>([
    [{}, ''],
    [{ matchLabels: {}, matchExpressions: [] }, ''],
    [{ matchLabels: { a: 'b', c: '' } }, 'a=b,c='],
    [{ matchExpressions: [{ key: 'e', operator: 'In', values: ['x', 'y'] }] }, 'e in (x,y)'],
    [{ matchExpressions: [{ key: 'e', operator: 'In', values: ['x'] }] }, 'e in (x)'],
    [{ matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['d'] }] }, 'c!=d'],
    [{ matchExpressions: [{ key: 'f', operator: 'NotIn', values: ['y', 'z'] }] }, 'f notin (y,z)'],
    [{ matchExpressions: [{ key: 'g', operator: 'Exists' }] }, 'g'],
    [{ matchExpressions: [{ key: 'h', operator: 'DoesNotExist' }] }, '!h'],
  ])('formats %j as %j', (selector, text) => {
    expect(formatLabelSelector(selector)).toBe(text);
  });

  it.each([
    'a=b,c!=d,e in (x,y),f notin (y,z),g,!h',
    'toolgate.dev/env=prod,tier=',
    'e in ()',
    'e in (,x)',
  ])('round-trips %j', (text) => {
    expect(formatLabelSelector(parseLabelSelector(text))).toBe(text);
  });

  const name = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?$/);
  const key = fc.oneof(
    name,
    fc.tuple(fc.constantFrom('toolgate.dev', 'example.com'), name).map(([p, n]) => `${p}/${n}`),
  );
  const value = fc.oneof(fc.constant(''), name);
  const selectorArb: fc.Arbitrary<LabelSelector> = fc.record(
    {
      matchLabels: fc.dictionary(key, value, { maxKeys: 4 }),
      matchExpressions: fc.array(
        fc.oneof(
          fc.record({
            key,
            operator: fc.constantFrom('In' as const, 'NotIn' as const),
            values: fc.array(value, { minLength: 1, maxLength: 3 }),
          }),
          fc.record({ key, operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
        ),
        { maxLength: 4 },
      ),
    },
    { requiredKeys: [] },
  );

  it('parse(format(selector)) selects exactly what selector selects', () => {
    const labelsArb = fc.dictionary(key, value, { maxKeys: 5 });
    fc.assert(
      fc.property(selectorArb, labelsArb, (selector, labels) => {
        const reparsed = parseLabelSelector(formatLabelSelector(selector));
        expect(LabelSelector.safeParse(reparsed).success).toBe(true);
        expect(matchesLabelSelector(reparsed, labels)).toBe(matchesLabelSelector(selector, labels));
        // Formatting is a fixed point after one round trip.
        expect(formatLabelSelector(reparsed)).toBe(formatLabelSelector(selector));
      }),
    );
  });
});

describe('defineResource', () => {
  it('parses a stored object, status optional', () => {
    const parsed = parseOrThrow(Widget, widget(), 'Widget');
    expect(parsed.kind).toBe('Widget');
    expect(parsed.status).toBeUndefined();
    expect(parsed.metadata.labels).toEqual({});
  });

  it.each<[Record<string, unknown>, string]>([
    [{ apiVersion: 'toolgate.dev/v2' }, 'apiVersion'],
    [{ apiVersion: undefined }, 'apiVersion'],
    [{ kind: 'Gadget' }, 'kind'],
    [{ metadata: undefined }, 'metadata'],
    [{ spec: { size: 0 } }, 'spec.size'],
    [{ spec: { size: 1, colour: 'red' } }, 'spec'],
    [{ status: { conditions: 'none' } }, 'status.conditions'],
  ])('rejects %j at %s', (overrides, field) => {
    expect(failingFields(Widget, widget(overrides))).toEqual([field]);
  });

  it('reports every failing field at once', () => {
    const input = widget({ kind: 'Gadget', spec: { size: 0 } }, { name: 'Bad' });
    expect(failingFields(Widget, input).sort()).toEqual(['kind', 'metadata.name', 'spec.size']);
  });
});

describe('defineResourceInput', () => {
  it('needs only metadata.name and drops a status sent along', () => {
    const input = {
      apiVersion: API_VERSION,
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 2 },
      status: { conditions: [] },
    };
    expect(parseOrThrow(WidgetInput, input, 'Widget')).toEqual({
      apiVersion: API_VERSION,
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 2 },
    });
  });

  it('accepts the output of get unchanged', () => {
    expect(failingFields(WidgetInput, widget({ status: { conditions: [] } }))).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ kind: 'Gadget' }, 'kind'],
    [{ metadata: { name: 'W' } }, 'metadata.name'],
    [{ metadata: {} }, 'metadata.name'],
    [{ spec: undefined }, 'spec'],
  ])('rejects %j at %s', (overrides, field) => {
    expect(failingFields(WidgetInput, widget(overrides))).toEqual([field]);
  });
});
