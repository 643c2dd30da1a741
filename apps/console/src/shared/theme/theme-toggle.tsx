import { useId, useState } from 'react';
import { applyTheme, isTheme, readTheme, storeTheme, THEMES, type Theme } from './theme.ts';

const LABELS: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** Light / dark / system, applied at once and remembered in this browser. */
export function ThemeToggle() {
  const id = useId();
  const [theme, setTheme] = useState<Theme>(readTheme);
  return (
    <span className="theme-toggle">
      <label htmlFor={id}>Theme</label>
      <select
        id={id}
        value={theme}
        onChange={(event) => {
          const next = event.target.value;
          if (!isTheme(next)) return;
          setTheme(next);
          storeTheme(next);
          applyTheme(next);
        }}
      >
        {THEMES.map((t) => (
          <option key={t} value={t}>
            {LABELS[t]}
          </option>
        ))}
      </select>
    </span>
  );
}
