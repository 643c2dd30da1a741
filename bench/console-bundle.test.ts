import type { BuiltChunk } from '@toolgate/console/server';
import { describe, expect, it } from 'vitest';
import { landingJavaScript } from './console-bundle.ts';

const chunk = (fileName: string, extra: Partial<BuiltChunk> = {}): BuiltChunk => ({
  fileName,
  isEntry: false,
  module: undefined,
  imports: [],
  dynamicImports: [],
  ...extra,
});

describe('landingJavaScript', () => {
  it('splits the entry’s graph, the landing route’s and what the route loads after rendering', () => {
    const chunks = [
      chunk('index.js', {
        isEntry: true,
        imports: ['react.js', 'shared.js'],
        dynamicImports: ['overview.js', 'policies.js'],
      }),
      chunk('react.js'),
      chunk('shared.js', { imports: ['react.js'] }),
      chunk('overview.js', {
        module: '/src/features/overview/components/overview-page.tsx',
        imports: ['shared.js', 'search-params.js'],
        dynamicImports: ['chart.js'],
      }),
      chunk('search-params.js'),
      chunk('chart.js', { imports: ['react.js', 'uplot.js'] }),
      chunk('uplot.js'),
      chunk('policies.js', { module: '/src/features/policies/policies-page.tsx' }),
    ];
    expect(landingJavaScript(chunks, /overview-page\.tsx$/)).toEqual({
      initial: ['index.js', 'react.js', 'shared.js'],
      route: ['overview.js', 'search-params.js'],
      afterRender: ['chart.js', 'uplot.js'],
    });
  });

  it('refuses a graph without exactly one chunk for the route', () => {
    expect(() =>
      landingJavaScript([chunk('index.js', { isEntry: true })], /overview-page\.tsx$/),
    ).toThrow('expected one chunk');
  });
});
