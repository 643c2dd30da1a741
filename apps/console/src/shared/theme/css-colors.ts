import { useEffect, useState } from 'react';

/**
 * A canvas cannot read CSS: a chart's colours are given as CSS (`var(--chart-ok)`, whose token
 * is a `light-dark()` pair) and resolved here to what the page shows now, through a probe
 * element's computed `color`. Reading the custom property itself would give the unresolved
 * `light-dark(…)` text.
 */
export function resolveCssColor(within: Element, css: string): string {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  probe.style.color = css;
  within.appendChild(probe);
  const resolved = getComputedStyle(probe).color;
  probe.remove();
  return resolved || css;
}

/**
 * A number that changes whenever the colours in force may have: the system's scheme changed, or
 * the theme toggle pinned another (`<html data-theme>`). A canvas drawn with resolved colours
 * redraws on it.
 */
export function useColorSchemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const media = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
    media?.addEventListener('change', bump);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['data-theme'],
    });
    return () => {
      media?.removeEventListener('change', bump);
      observer.disconnect();
    };
  }, []);
  return version;
}
