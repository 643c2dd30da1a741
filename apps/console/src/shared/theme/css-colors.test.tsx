import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveCssColor, useColorSchemeVersion } from './css-colors.ts';

afterEach(() => {
  delete document.documentElement.dataset.theme;
});

describe('resolveCssColor', () => {
  it('gives the computed colour of a CSS value inside an element, and leaves nothing behind', () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    expect(resolveCssColor(host, 'rgb(1, 2, 3)')).toBe('rgb(1, 2, 3)');
    expect(host.childElementCount).toBe(0);
    host.remove();
  });
});

describe('useColorSchemeVersion', () => {
  it('changes when the theme toggle pins another theme', async () => {
    const { result } = renderHook(() => useColorSchemeVersion());
    const before = result.current;
    await act(async () => {
      document.documentElement.dataset.theme = 'dark';
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(result.current).toBeGreaterThan(before);
    const pinned = result.current;
    await act(async () => {
      delete document.documentElement.dataset.theme;
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(result.current).toBeGreaterThan(pinned);
  });
});
