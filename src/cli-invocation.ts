/**
 * How the user runs gebe where they are, for the commands gebe prints ("Next steps", "for
 * example: …"). A clone is not on PATH, so printing `gebe …` there gives "command not found".
 * This is the one place that decides it; everything that prints a runnable command calls it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface InvocationContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The script node runs (process.argv[1]): bin/gebe.js in a clone, …/bin/gebe or …/.bin/gebe when installed. */
  script?: string;
  /** The gebe package's root directory. */
  packageRoot?: string;
}

/** dist/cli-invocation.js and src/cli-invocation.ts both sit one level below the package root. */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `npx gebe` under npx (or as a project's dependency), `gebe` when installed globally (its bin is
 * on PATH), and `node <path>/bin/gebe.js` from a clone: the clone's own build, run directly.
 */
export function cliInvocation(ctx: InvocationContext): string {
  const root = ctx.packageRoot ?? PACKAGE_ROOT;
  const script = ctx.script ?? process.argv[1] ?? '';
  if (ctx.env.npm_command === 'exec') return 'npx gebe';
  if (!root.split(path.sep).includes('node_modules')) {
    const bin = path.relative(ctx.cwd, path.join(root, 'bin', 'gebe.js'));
    const shown = bin.startsWith('..') || path.isAbsolute(bin) ? path.join(root, 'bin', 'gebe.js') : bin;
    return `node ${/^[A-Za-z0-9_./-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`}`;
  }
  const onPath = (ctx.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && path.resolve(dir) === path.dirname(script));
  return onPath && path.basename(script) === 'gebe' ? 'gebe' : 'npx gebe';
}
