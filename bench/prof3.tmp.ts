import { canonicalize, compileBundle, mediateRequest } from '@toolgate/core';
import { sha256Hex } from '../packages/core/src/hash/sha256.node.ts';
import { fiftyToolRequest, tenRuleBundle } from './core-mediation.ts';
import { medianNsPerOp } from './measure.ts';

const text = JSON.stringify(fiftyToolRequest());
const parsed = JSON.parse(text);
const b = tenRuleBundle();
const empty = compileBundle({ policies: [] });
const t = (name: string, fn: () => unknown) => {
  for (let i = 0; i < 1000; i++) fn();
  console.log(name.padEnd(20), (medianNsPerOp(fn, 200, 21) / 1000).toFixed(1), 'µs');
};
t('parse', () => JSON.parse(text));
t('stringify', () => JSON.stringify(parsed));
t('canon+sha tools', () => parsed.tools.map((x: unknown) => sha256Hex(canonicalize(x))));
t('mediate 10 rules', () => mediateRequest(b, { surface: 'openai-chat', body: parsed }));
t('mediate no rules', () => mediateRequest(empty, { surface: 'openai-chat', body: parsed }));
