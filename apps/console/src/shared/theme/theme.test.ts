import { describe, expect, it } from 'vitest';
import { applyTheme, readTheme, storeTheme, THEME_KEY } from './theme.ts';

describe('theme', () => {
  it('remembers light and dark; system is the absence of a choice', () => {
    storeTheme('dark', localStorage);
    expect(localStorage.getItem(THEME_KEY)).toBe('dark');
    expect(readTheme(localStorage)).toBe('dark');
    storeTheme('system', localStorage);
    expect(localStorage.getItem(THEME_KEY)).toBeNull();
    expect(readTheme(localStorage)).toBe('system');
  });

  it('treats anything else stored under the key as system', () => {
    localStorage.setItem(THEME_KEY, '"><script>');
    expect(readTheme(localStorage)).toBe('system');
    localStorage.removeItem(THEME_KEY);
  });

  it('pins a theme on <html> and lets the media query decide for system', () => {
    const root = document.createElement('html');
    applyTheme('dark', root);
    expect(root.dataset.theme).toBe('dark');
    applyTheme('system', root);
    expect(root.dataset.theme).toBeUndefined();
  });

  it('survives a storage that throws', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    expect(readTheme(broken)).toBe('system');
    expect(() => storeTheme('dark', broken)).not.toThrow();
  });
});
