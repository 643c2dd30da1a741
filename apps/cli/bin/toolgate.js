#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step): tsx registers the loader, then main runs.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
