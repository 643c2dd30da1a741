import { compileBundle, mediateRequest } from '@toolgate/core';
import { fiftyToolRequest } from './core-mediation.ts';

const parsed = JSON.parse(JSON.stringify(fiftyToolRequest()));
const empty = compileBundle({ policies: [] });
const s = performance.now();
for (let i = 0; i < 5000; i++) mediateRequest(empty, { surface: 'openai-chat', body: parsed });
console.log((((performance.now() - s) / 5000) * 1000).toFixed(1), 'µs');
