/**
 * The one check for every path a config or a request names (default_model_filename,
 * label_filename, warmup input_data_file, `file:` overrides): it must resolve, after symlinks,
 * inside the model's directory. A path that does not is answered with one message that says
 * nothing about the outside path: not whether it exists, not what it holds.
 */
import fs from 'node:fs';
import path from 'node:path';

export type InsideResult =
  | { ok: true; path: string }
  | { ok: false; reason: 'outside' | 'missing' };

/** The wording every caller uses for a path that leaves the model directory. */
export function outsideMessage(field: string, value: string): string {
  return `${field} "${quotePrefix(value)}" is not a path inside the model directory (no absolute paths, no '..', no symlinks out of it)`;
}

/** At most 200 characters of a client- or config-given path, for messages. */
function quotePrefix(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

/** Whether absolute path `p` is `root` or below it (no file-system access). */
export function isWithin(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Resolves `relative` against `base` (a directory inside `root`, or root itself) and checks it
 * stays inside `root` lexically and after symlinks. 'missing' is only ever said of a path inside.
 */
export function resolveInside(root: string, base: string, relative: string): InsideResult {
  if (relative === '' || relative.includes('\0') || path.isAbsolute(relative) || /^[A-Za-z]:|^\\/.test(relative)) {
    return { ok: false, reason: 'outside' };
  }
  const lexicalRoot = path.resolve(root);
  const lexical = path.resolve(base, relative);
  if (!isWithin(lexicalRoot, lexical)) return { ok: false, reason: 'outside' };
  let realRoot: string;
  try {
    realRoot = fs.realpathSync.native(lexicalRoot);
  } catch {
    return { ok: false, reason: 'missing' };
  }
  try {
    const real = fs.realpathSync.native(lexical);
    return isWithin(realRoot, real) ? { ok: true, path: lexical } : { ok: false, reason: 'outside' };
  } catch {
    // Does not resolve: a dangling symlink on the way may point anywhere, so only a path whose
    // every existing component stays inside is 'missing'.
    let probe = lexical;
    while (isWithin(lexicalRoot, probe) && probe !== lexicalRoot) {
      try {
        if (fs.lstatSync(probe).isSymbolicLink()) return { ok: false, reason: 'outside' };
        const real = fs.realpathSync.native(probe);
        return isWithin(realRoot, real) ? { ok: false, reason: 'missing' } : { ok: false, reason: 'outside' };
      } catch {
        probe = path.dirname(probe);
      }
    }
    return { ok: false, reason: 'missing' };
  }
}
