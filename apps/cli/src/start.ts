import { main } from './main.ts';

// `pnpm start`: until the API, gateway and console exist, starting Toolgate means trying the
// mediation engine on the bundled example.
const policy = 'examples/policies/github-guardrails.yaml';
const request = 'examples/requests/openai-chat.json';
process.stderr.write(
  [
    'Toolgate — running the mediation engine on the bundled example:',
    `  policy:  ${policy}`,
    `  request: ${request}`,
    'Try your own: pnpm toolgate eval --policy <file> --request <file>  (pnpm toolgate --help)',
    '',
  ].join('\n'),
);
process.exitCode = await main(['eval', '--policy', policy, '--request', request]);
