/**
 * The baseline of `--against`: a git ref (read from the object store, no checkout), another
 * directory, or a tarball (unpacked into a temporary directory). Each validated path is scanned
 * in the baseline by the same scanner as the working tree, so both sides see models, versions and
 * files the way Triton would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GebeError, UsageError } from '../../../errors.js';
import { nodeFileSystem, type ScanFileSystem } from '../../repository/fs.js';
import { CONFIG_FILE, scanTarget } from '../../repository/scan.js';
import { TARBALL, unpackTarballSync } from '../../repository/tarball.js';
import type { ScanTarget } from '../../repository/types.js';
import { git, GitTreeFileSystem } from './git-tree-fs.js';

export interface BaselineSide {
  target: ScanTarget;
  fs: ScanFileSystem;
  /** How to name a baseline file in messages: "main:model_repository/m/config.pbtxt". */
  label(absPath: string): string;
  /**
   * Files (absolute, in the working tree) that differ from the baseline, for --changed;
   * undefined when the baseline kind cannot tell cheaply (then every file is compared). Computed
   * on first call: only --changed needs it.
   */
  changedFiles?: () => Set<string>;
}

export interface Baseline {
  kind: 'git' | 'directory' | 'tarball';
  /** The --against value as given. */
  spec: string;
  /** The counterpart of a validated target, or undefined when it does not exist in the baseline. */
  side(target: ScanTarget, cwd: string): BaselineSide | undefined;
  dispose(): void;
}


export function openBaseline(spec: string, cwd: string, targets: ScanTarget[]): Baseline {
  const abs = path.resolve(cwd, spec);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(abs);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory() || (stat?.isFile() && TARBALL.test(spec))) {
    if (targets.length !== 1) throw new UsageError(`--against ${spec} is a ${stat.isDirectory() ? 'directory' : 'tarball'}: it is the baseline of one path, but ${targets.length} were given`, 'validate one path at a time, or use --against <git ref>');
    return stat.isDirectory() ? directoryBaseline(spec, abs, 'directory', () => {}) : tarballBaseline(spec, abs);
  }
  if (stat?.isFile()) throw new UsageError(`--against ${spec} is a file but not a tarball (.tar, .tgz, .tar.gz, .tar.xz, .tar.bz2)`, 'pass a git ref, a directory or a tarball');
  return gitBaseline(spec);
}

function directoryBaseline(spec: string, dir: string, kind: 'directory' | 'tarball', dispose: () => void): Baseline {
  return {
    kind,
    spec,
    side(target, cwd) {
      const root = kind === 'tarball' ? unwrap(dir, target) : dir;
      const given = target.kind === 'config' && fs.statSync(root).isDirectory() ? path.join(root, CONFIG_FILE) : root;
      if (!fs.existsSync(given)) return undefined;
      const side = scanTarget(given, cwd);
      const base = target.kind === 'config' ? path.dirname(given) : given;
      const rel = (p: string) => path.relative(base, p).split(path.sep).join('/');
      return {
        target: side,
        fs: nodeFileSystem,
        label: kind === 'tarball' ? (p) => `${spec}:${rel(p)}` : (p) => path.join(spec, rel(p)),
      };
    },
    dispose,
  };
}

/** A tarball of `model_repository/` unpacks to one wrapper directory: descend into it. */
function unwrap(dir: string, target: ScanTarget): string {
  let root = dir;
  for (let depth = 0; depth < 4; depth++) {
    const entries = fs.readdirSync(root, { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
    if (entries.length !== 1 || !entries[0]!.isDirectory()) break;
    const inner = path.join(root, entries[0]!.name);
    // A repository with one model looks like a wrapper too: stop at a model directory unless a
    // model directory (or a config) is what is being validated.
    const isModel = fs.existsSync(path.join(inner, CONFIG_FILE));
    if (isModel && target.kind === 'repository') break;
    root = inner;
    if (isModel) break;
  }
  return root;
}

function tarballBaseline(spec: string, file: string): Baseline {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-against-'));
  const dispose = () => fs.rmSync(tmp, { recursive: true, force: true });
  try {
    unpackTarballSync(file, tmp);
  } catch (err) {
    dispose();
    throw new GebeError(`cannot unpack --against ${spec}: ${(err as Error).message}`, { hint: 'pass a tar archive (optionally gzip, bzip2 or xz compressed) of the baseline repository' });
  }
  return directoryBaseline(spec, tmp, 'tarball', dispose);
}

function gitBaseline(ref: string): Baseline {
  const trees = new Map<string, GitTreeFileSystem>();
  return {
    kind: 'git',
    spec: ref,
    side(target) {
      const dir = target.kind === 'config' ? path.dirname(target.path) : target.path;
      const top = git(dir, ['rev-parse', '--show-toplevel']).toString('utf8').trim();
      const verified = (() => {
        try {
          return git(top, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).toString('utf8').trim();
        } catch {
          return '';
        }
      })();
      if (!verified) throw new UsageError(`--against ${ref}: no such git ref (nor a directory or tarball) in ${top}`, 'name a branch, tag or commit (in CI fetch it: actions/checkout with fetch-depth: 0), a directory, or a tarball');
      // The working tree's real path, so the listing's absolute paths match the scan's.
      const real = fs.realpathSync.native(top);
      const targetReal = fs.realpathSync.native(target.path);
      const under = path.relative(real, target.kind === 'config' ? path.dirname(targetReal) : targetReal).split(path.sep).join('/');
      const key = `${real}\0${under}`;
      let tree = trees.get(key);
      if (!tree) {
        tree = new GitTreeFileSystem(real, verified, under);
        trees.set(key, tree);
      }
      let side: ScanTarget;
      try {
        tree.stat(targetReal);
      } catch {
        return undefined; // the path did not exist at the ref: everything is an addition
      }
      tree.prefetch(target.kind === 'config' ? [targetReal] : tree.filesUnder(targetReal, CONFIG_FILE));
      side = scanTarget(targetReal, top, { fs: tree });
      side = { ...side, given: target.given };
      let changed: Set<string> | undefined;
      const changedFiles = () => {
        if (changed) return changed;
        changed = new Set<string>();
        const names = (args: string[]) => git(real, args).toString('utf8').split('\0').filter(Boolean);
        const pathspec = under || '.';
        for (const rel of names(['diff', '--name-only', '-z', '--no-renames', verified, '--', pathspec])) changed.add(path.join(real, rel));
        for (const rel of names(['ls-files', '-z', '--others', '--exclude-standard', '--', pathspec])) changed.add(path.join(real, rel));
        return changed;
      };
      return {
        target: side,
        fs: tree,
        label: (p) => `${ref}:${path.relative(real, p).split(path.sep).join('/')}`,
        changedFiles,
      };
    },
    dispose() {},
  };
}
