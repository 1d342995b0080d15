/**
 * Scans what `gebe validate` is pointed at: a model repository, one model directory, or one config
 * file. It records what Triton would see (models, version directories, files) and every file-system
 * problem on the way; it never throws for a bad file, only for a path that does not exist.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { describeFsError, nodeFileSystem, type ScanFileSystem } from './fs.js';
import { isWithin } from './inside.js';
import { readConfigSource } from './read-config.js';
import type { ModelEntry, ScanProblem, ScanTarget, SkippedEntry, VersionDir } from './types.js';
import { isVersionName, NON_VERSION_DIRS } from './versions.js';

export const CONFIG_FILE = 'config.pbtxt';
/**
 * Bounds on one model directory's search. Real models are a few levels deep and hold a handful of
 * files; past these the search stops (WALK_LIMIT) instead of covering whatever the tree holds.
 */
export const MAX_WALK_DEPTH = 32;
export const MAX_WALK_ENTRIES = 100_000;

export interface ScanOptions {
  fs?: ScanFileSystem;
  /** Triton's --model-config-name: each model's configs/<name>.pbtxt where it has one (customConfigFile). */
  configName?: string;
}

/** Joins the path as given on the command line with a path inside it, the way diagnostics show it. */
function displayJoin(base: string, ...parts: string[]): string {
  return path.join(base, ...parts);
}

/** What a recursive walk collects; `dirs` lists every directory met, relative, empty ones included. */
export interface WalkResult {
  files: string[];
  dirs: string[];
}

interface Walk {
  fs: ScanFileSystem;
  problems: ScanProblem[];
  /** Real paths a directory symlink may lead into: the repository and the model directory. */
  roots: string[];
  ancestors: Set<string>;
  entries: number;
  stopped: boolean;
  out: WalkResult;
}

/**
 * Lists files under dir recursively (sorted per directory). Directory symlinks are followed only
 * while they stay inside the repository (the model directory's parent) or the model directory,
 * file symlinks only inside the model directory,
 * and never around a loop; the search stops at MAX_WALK_DEPTH levels and MAX_WALK_ENTRIES entries.
 * Real paths are computed with a system call only for symlinks: a plain subdirectory's real path
 * is its parent's plus its name, which keeps a 1,000-model scan to a few calls per model.
 */
export function walkFiles(fs: ScanFileSystem, dir: string, display: string, problems: ScanProblem[]): WalkResult {
  const out: WalkResult = { files: [], dirs: [] };
  let real: string;
  const roots: string[] = [];
  try {
    real = fs.realpath(dir);
    roots.push(real);
    roots.push(fs.realpath(path.dirname(path.resolve(dir))));
  } catch (err) {
    const { code, reason } = describeFsError(err);
    problems.push({ kind: code === 'ELOOP' ? 'symlink-loop' : 'unreadable', path: dir, display, message: `cannot open directory ${display}: ${reason}` });
    return out;
  }
  if (isWithin(real, roots[1]!)) {
    // The model directory is a symlink to the repository or above it (to / say): searching it
    // would search the repository again, and everything around it.
    problems.push({ kind: 'symlink-loop', path: dir, display, message: `${display} is a symlink to a directory that contains the model repository itself; gebe does not search it` });
    return out;
  }
  walkInto({ fs, problems, roots, ancestors: new Set(), entries: 0, stopped: false, out }, dir, real, display, 0, '');
  return out;
}

function walkInto(w: Walk, dir: string, real: string, display: string, depth: number, prefix: string): void {
  if (w.ancestors.has(real)) {
    w.problems.push({
      kind: 'symlink-loop', path: dir, display,
      message: `${display} leads back into a directory already being searched (a symlink loop); Triton's recursive search would not end`,
    });
    return;
  }
  if (depth > MAX_WALK_DEPTH) {
    w.stopped = true;
    w.problems.push({ kind: 'walk-limit', path: dir, display, message: `${display} is more than ${MAX_WALK_DEPTH} directory levels deep inside its model; the search stops there` });
    return;
  }
  let entries;
  try {
    entries = w.fs.readdir(dir);
  } catch (err) {
    w.problems.push({ kind: 'unreadable', path: dir, display, message: `cannot list directory ${display}: ${describeFsError(err).reason}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  w.ancestors.add(real);
  for (const entry of entries) {
    if (w.stopped) break;
    if (++w.entries > MAX_WALK_ENTRIES) {
      w.stopped = true;
      w.problems.push({ kind: 'walk-limit', path: dir, display, message: `the model directory holds more than ${MAX_WALK_ENTRIES} files and directories; the search stopped in ${display}` });
      break;
    }
    const full = path.join(dir, entry.name);
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const entryDisplay = displayJoin(display, entry.name);
    let isDir = entry.isDirectory();
    let entryReal = `${real}/${entry.name}`;
    if (entry.isSymbolicLink()) {
      try {
        isDir = w.fs.stat(full).isDirectory();
        entryReal = w.fs.realpath(full);
      } catch (err) {
        const { code, reason } = describeFsError(err);
        w.problems.push({ kind: code === 'ELOOP' ? 'symlink-loop' : 'unreadable', path: full, display: entryDisplay, message: `cannot follow symlink ${entryDisplay}: ${reason}` });
        continue;
      }
      // A directory may lead anywhere in the repository; a file must stay in its model, where
      // every path a config names must resolve (inside.ts).
      if (isDir ? !w.roots.some((root) => isWithin(root, entryReal)) : !isWithin(w.roots[0]!, entryReal)) {
        // Named without its target: the report must not describe the file system outside, and
        // nothing reads the file (a model inspection would reveal its first bytes).
        const where = isDir ? 'a directory outside the model repository' : 'a file outside its model directory';
        w.problems.push({ kind: 'symlink-outside', path: full, display: entryDisplay, message: `${entryDisplay} is a symlink to ${where}; gebe does not follow it` });
        continue;
      }
    }
    if (isDir) {
      w.out.dirs.push(rel);
      walkInto(w, full, entryReal, entryDisplay, depth + 1, rel);
    } else w.out.files.push(rel);
  }
  w.ancestors.delete(real);
}

function statKind(fs: ScanFileSystem, p: string): 'file' | 'dir' | 'missing' | { error: unknown } {
  try {
    return fs.stat(p).isDirectory() ? 'dir' : 'file';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : { error: err };
  }
}

/**
 * Triton's custom configs (tritonserver --model-config-name <name>): a model's
 * `configs/<name>.pbtxt`, read instead of its config.pbtxt where it exists.
 */
export function customConfigFile(configName: string): string {
  return `configs/${configName}.pbtxt`;
}

/**
 * A --model-config-name as given (serve's and validate's flag): a file name inside each model's
 * configs/ folder, so nothing that could leave it.
 */
export function checkedConfigName(value: string): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(value) || value.length > 200) {
    throw new UsageError(`--model-config-name must be a config's name (letters, digits, '_', '.', '-'; configs/<name>.pbtxt), got '${value}'`, 'for example --model-config-name ascend310p for <model>/configs/ascend310p.pbtxt');
  }
  return value;
}

/** Scans one model directory; with `configName`, its custom config where it has one (customConfigFile). */
export function scanModel(fs: ScanFileSystem, dir: string, display: string, problems: ScanProblem[], configName?: string): ModelEntry {
  const entry: ModelEntry = { name: path.basename(path.resolve(dir)), dir, display, versions: [], skipped: [], files: [], warmupFiles: [] };
  const walk = walkFiles(fs, dir, display, problems);
  entry.files = walk.files;
  const custom = configName === undefined ? undefined : customConfigFile(configName);
  const config = custom !== undefined && walk.files.includes(custom) ? custom : CONFIG_FILE;
  if (walk.files.includes(config) || walk.dirs.includes(config)) {
    entry.config = readConfigSource(fs, path.join(dir, config), displayJoin(display, config), problems);
  }
  const topDirs = walk.dirs.filter((d) => !d.includes('/'));
  const versions: VersionDir[] = [];
  const skipped: SkippedEntry[] = [];
  for (const name of topDirs) {
    const sub = path.join(dir, name);
    const subDisplay = displayJoin(display, name);
    const inside = entry.files.filter((f) => f.startsWith(`${name}/`)).map((f) => f.slice(name.length + 1));
    if (name === 'warmup') entry.warmupFiles = inside;
    if (NON_VERSION_DIRS.has(name) || name.startsWith('.')) continue;
    if (isVersionName(name)) versions.push({ name, version: Number(name), path: sub, display: subDisplay, files: inside });
    else {
      const reason = /^\d+$/.test(name)
        ? 'version directory names must not have leading zeros'
        : 'version directory names must be non-negative integers';
      skipped.push({ name, path: sub, display: subDisplay, reason });
    }
  }
  entry.versions = versions.sort((a, b) => a.version - b.version);
  entry.skipped = skipped;
  return entry;
}

function looksLikeModelDir(fs: ScanFileSystem, dir: string): boolean {
  if (statKind(fs, path.join(dir, CONFIG_FILE)) !== 'missing') return true;
  try {
    return fs.readdir(dir).some((d) => isVersionName(d.name) && (d.isDirectory() || d.isSymbolicLink()));
  } catch {
    return false;
  }
}

/**
 * Scans a path: a file is a config alone; a directory with a config.pbtxt or version directories is
 * a model; any other directory is a repository whose subdirectories are models.
 */
export function scanTarget(given: string, cwd: string, options: ScanOptions = {}): ScanTarget {
  const fs = options.fs ?? nodeFileSystem;
  const abs = path.resolve(cwd, given);
  const problems: ScanProblem[] = [];
  const kind = statKind(fs, abs);
  if (kind === 'missing') {
    throw new UsageError(`${given} does not exist`, 'pass a model repository, a model directory or a config.pbtxt (default: ./model_repository)');
  }
  if (typeof kind === 'object') {
    const { code, reason } = describeFsError(kind.error);
    problems.push({ kind: code === 'ELOOP' ? 'symlink-loop' : 'unreadable', path: abs, display: given, message: `cannot open ${given}: ${reason}` });
    return { kind: 'repository', given, path: abs, models: [], problems };
  }
  if (kind === 'file') {
    return { kind: 'config', given, path: abs, models: [], config: readConfigSource(fs, abs, given, problems), problems };
  }
  if (looksLikeModelDir(fs, abs)) {
    return { kind: 'model', given, path: abs, models: [scanModel(fs, abs, given, problems, options.configName)], problems };
  }
  const models: ModelEntry[] = [];
  let entries;
  try {
    entries = fs.readdir(abs);
  } catch (err) {
    problems.push({ kind: 'unreadable', path: abs, display: given, message: `cannot list ${given}: ${describeFsError(err).reason}` });
    return { kind: 'repository', given, path: abs, models, problems };
  }
  for (const d of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (d.name.startsWith('.')) continue;
    const full = path.join(abs, d.name);
    const display = displayJoin(given, d.name);
    let isDir = d.isDirectory();
    if (d.isSymbolicLink()) {
      const k = statKind(fs, full);
      if (typeof k === 'object' || k === 'missing') {
        const reason = k === 'missing' ? 'the symlink points nowhere' : describeFsError(k.error).reason;
        const loop = typeof k === 'object' && describeFsError(k.error).code === 'ELOOP';
        problems.push({ kind: loop ? 'symlink-loop' : 'unreadable', path: full, display, message: `cannot open model ${display}: ${reason}` });
        continue;
      }
      isDir = k === 'dir';
    }
    if (isDir) models.push(scanModel(fs, full, display, problems, options.configName));
  }
  return { kind: 'repository', given, path: abs, models, problems };
}

/** A model's custom configs, relative to it: configs/<name>.pbtxt (customConfigFile). */
const CUSTOM_CONFIG = /^configs\/[A-Za-z0-9_][A-Za-z0-9_.-]*\.pbtxt$/;

/**
 * Each custom config of the models a scan found (configs/<name>.pbtxt, each what tritonserver
 * --model-config-name <name> loads instead of config.pbtxt) other than the one the scan read, as
 * a target of its own: the model with that config, so every config a server may load is checked
 * in its model directory.
 */
export function customConfigTargets(target: ScanTarget, fs: ScanFileSystem = nodeFileSystem): ScanTarget[] {
  const out: ScanTarget[] = [];
  for (const model of target.models) {
    for (const file of model.files.filter((f) => CUSTOM_CONFIG.test(f)).sort()) {
      const display = displayJoin(model.display, file);
      if (model.config?.display === display) continue;
      const problems: ScanProblem[] = [];
      const config = readConfigSource(fs, path.join(model.dir, file), display, problems);
      out.push({ kind: 'model', given: display, path: model.dir, models: [{ ...model, config }], problems, alternate: true });
    }
  }
  return out;
}
