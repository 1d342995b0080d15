// Runs a TypeScript script from source with Vite's module runner (the transform vitest uses), so
// scripts import src/ exactly as the tests do. Usage: node scripts/run-ts.mjs scripts/x.ts [args...]
import { createServer, createServerModuleRunner } from 'vite';
import path from 'node:path';

const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error('usage: node scripts/run-ts.mjs <script.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(script), ...args];
const server = await createServer({ configFile: false, server: { middlewareMode: true, hmr: false, ws: false }, appType: 'custom', logLevel: 'error', optimizeDeps: { noDiscovery: true, include: [] } });
const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
try {
  await runner.import(path.resolve(script));
} finally {
  await runner.close();
  await server.close();
}
