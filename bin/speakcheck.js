#!/usr/bin/env node
// The package ships TypeScript sources and runs them through tsx, so there is no build step
// between editing a suite and running it.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
