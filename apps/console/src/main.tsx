import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { applyTheme, readTheme } from './shared/theme/theme.ts';
import './styles.css';

// Before the first render, so a pinned theme never flashes the other one.
applyTheme(readTheme());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
