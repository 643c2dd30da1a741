import { mediateRequest } from '@toolgate/core';
import { fiftyToolRequest, tenRuleBundle } from './core-mediation.ts';

const parsed = JSON.parse(JSON.stringify(fiftyToolRequest()));
const b = tenRuleBundle();
for (let i = 0; i < 3000; i++) mediateRequest(b, { surface: 'openai-chat', body: parsed });
const s = performance.now();
for (let i = 0; i < 20000; i++) mediateRequest(b, { surface: 'openai-chat', body: parsed });
console.log((((performance.now() - s) / 20000) * 1000).toFixed(1), 'µs');
