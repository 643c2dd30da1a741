import { describe, expect, it } from 'vitest';
import { ROUTES } from './index.ts';
import { ROUTE_INDEX } from './route-index.ts';
import { routeIndexOf } from './route-index-of.ts';

describe('ROUTE_INDEX', () => {
  it('is every route of ROUTES with its method, path and access (else: pnpm contract:route-index)', () => {
    expect(ROUTE_INDEX).toEqual(routeIndexOf(ROUTES));
    expect(Object.keys(ROUTE_INDEX)).toEqual(Object.keys(ROUTES));
  });

  it('holds no schema: nothing a browser would have to load the validation code for', () => {
    for (const shape of Object.values(ROUTE_INDEX)) {
      expect(Object.keys(shape).sort()).toEqual(['access', 'method', 'path']);
    }
  });
});
