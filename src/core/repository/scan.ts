/**
 * Scans what `gebe validate` is pointed at: a model repository, one model directory, or one config
 * file. It records what Triton would see (models, version directories, files) and every file-system
 * problem on the way; it never throws for a bad file, only for a path that does not exist.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { describeFsError, nodeFileSystem, type ScanFileSystem } from './fs.js';
import { readConfigSource } from './read-config.js';
import type { ModelEntry, ScanProblem, ScanTarget, SkippedEntry, VersionDir } from './types.js';
import { isVersionName, NON_VERSION_DIRS } from './versions.js';

export const CONFIG_FILE = 'config.pbtxt';
/** A recursive search deeper than this is almost surely a loop or a mistake. */
const MAX_DEPTH = 12;

export interface ScanOptions {
  fs?: ScanFileSystem;
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

/**
 * Lists files under dir recursively (sorted per directory), following symlinks but not loops.
 * Real paths are computed with a system call only for symlinks: a plain subdirectory's real path
 * is its parent's plus its name, which keeps a 1,000-model scan to a few calls per model.
 */
export function walkFiles(fs: ScanFileSystem, dir: string, display: string, problems: ScanProblem[]): WalkResult {
  const out: WalkResult = { files: [], dirs: [] };
  let real: string;
  try {
    real = fs.realpath(dir);
  } catch (err) {
    const { code, reason } = describeFsError(err);
    problems.push({ kind: code === 'ELOOP' ? 'symlink-loop' : 'unreadable', path: dir, display, message: `cannot open directory ${display}: ${reason}` });
    return out;
  }
  walkInto(fs, dir, real, display, problems, new Set(), 0, '', out);
  return out;
}

function walkInto(
  fs: ScanFileSystem, dir: string, real: string, display: string, problems: ScanProblem[],
  ancestors: Set<string>, depth: number, prefix: string, out: WalkResult,
): void {
  if (ancestors.has(real) || depth > MAX_DEPTH) {
    problems.push({
      kind: 'symlink-loop', path: dir, display,
      message: `${display} leads back into a directory already being searched (a symlink loop); Triton's recursive search would not end`,
    });
    return;
  }
  let entries;
  try {
    entries = fs.readdir(dir);
  } catch (err) {
    problems.push({ kind: 'unreadable', path: dir, display, message: `cannot list directory ${display}: ${describeFsError(err).reason}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  ancestors.add(real);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const entryDisplay = displayJoin(display, entry.name);
    let isDir = entry.isDirectory();
    let entryReal = `${real}/${entry.name}`;
    if (entry.isSymbolicLink()) {
      try {
        isDir = fs.stat(full).isDirectory();
        if (isDir) entryReal = fs.realpath(full);
      } catch (err) {
        const { code, reason } = describeFsError(err);
        problems.push({ kind: code === 'ELOOP' ? 'symlink-loop' : 'unreadable', path: full, display: entryDisplay, message: `cannot follow symlink ${entryDisplay}: ${reason}` });
        continue;
      }
    }
    if (isDir) {
      out.dirs.push(rel);
      walkInto(fs, full, entryReal, entryDisplay, problems, ancestors, depth + 1, rel, out);
    } else out.files.push(rel);
  }
  ancestors.delete(real);
}

function statKind(fs: ScanFileSystem, p: string): 'file' | 'dir' | 'missing' | { error: unknown } {
  try {
    return fs.stat(p).isDirectory() ? 'dir' : 'file';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : { error: err };
  }
}

/** Scans one model directory. */
export function scanModel(fs: ScanFileSystem, dir: string, display: string, problems: ScanProblem[]): ModelEntry {
  const entry: ModelEntry = { name: path.basename(path.resolve(dir)), dir, display, versions: [], skipped: [], files: [], warmupFiles: [] };
  const walk = walkFiles(fs, dir, display, problems);
  entry.files = walk.files;
  if (walk.files.includes(CONFIG_FILE) || walk.dirs.includes(CONFIG_FILE)) {
    entry.config = readConfigSource(fs, path.join(dir, CONFIG_FILE), displayJoin(display, CONFIG_FILE), problems);
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
    return { kind: 'model', given, path: abs, models: [scanModel(fs, abs, given, problems)], problems };
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
    if (isDir) models.push(scanModel(fs, full, display, problems));
  }
  return { kind: 'repository', given, path: abs, models, problems };
}
