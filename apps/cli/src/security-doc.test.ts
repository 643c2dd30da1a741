import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_PREFIX, ROUTES } from '@toolgate/contract';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './testing/run-cli.ts';

/** The access matrix in docs/security.md is the contract's, route by route: it cannot drift. */

const text = readFileSync(join(REPOSITORY_ROOT, 'docs/security.md'), 'utf8');
const ROLES = ['operator', 'auditor', 'gateway', 'agent'] as const;

/** `| \`route\` | \`METHOD /path\` | yes | | own | |` rows of the matrix. */
const rows = new Map(
  [...text.matchAll(/^\| `([a-zA-Z]+\.[a-zA-Z]+)` +\| `([A-Z]+) ([^`]+)` +\|(.*)\|$/gm)].map(
    ([, name = '', method, path, cells = '']) => [
      name,
      { method, path, cells: cells.split('|').map((cell) => cell.trim()) },
    ],
  ),
);

describe('docs/security.md', () => {
  it('lists every route that needs a token, with its method, path and roles', () => {
    const expected = Object.entries(ROUTES).filter(([, def]) => !('anonymous' in def.access));
    expect([...rows.keys()].sort()).toEqual(expected.map(([name]) => name).sort());
    for (const [name, def] of expected) {
      const access = def.access as { roles: readonly string[]; ownGateway?: boolean };
      expect(rows.get(name), name).toEqual({
        method: def.method,
        path: def.path.replace(API_PREFIX, ''),
        cells: ROLES.map((role) =>
          access.roles.includes(role)
            ? role === 'gateway' && access.ownGateway
              ? 'own'
              : 'yes'
            : '',
        ),
      });
    }
  });

  it('names the routes that need no token', () => {
    const line = text.split('\n').find((l) => l.startsWith('Without a token:')) ?? '';
    const anonymous = Object.values(ROUTES).filter((def) => 'anonymous' in def.access);
    expect(anonymous.length).toBeGreaterThan(0);
    for (const def of anonymous) expect(line).toContain(`\`${def.method} ${def.path}\``);
  });
});
