#!/usr/bin/env node
// Launcher: the compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('gebe: dist/cli.js is missing. Run `npm install` (or `npm run build`) in the gebe checkout first.\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
