/**
 * A read-only ScanFileSystem over a git tree (`git ls-tree` for the listing, one
 * `git cat-file --batch` for the contents), so the baseline of `--against <ref>` is scanned by
 * the same scanner as the working tree — no checkout, no temporary files. Paths are absolute,
 * as in the working tree: `<top>/model_repository/m/config.pbtxt` reads that path at the ref.
 */
import { execFileSync } from 'node:child_process';
import type fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../../errors.js';
import type { ScanFileSystem } from '../../repository/fs.js';
import { MAX_CONFIG_BYTES } from '../../repository/read-config.js';

interface TreeEntry {
  kind: 'file' | 'dir';
  /** Blob id (files only). */
  oid?: string;
  size: number;
}

/** Git output beyond this is not a model repository's listing (a monorepo's whole history?). */
const MAX_GIT_OUTPUT = 512 * 1024 * 1024;

export function git(cwd: string, args: string[], input?: string | Buffer): Buffer {
  try {
    return execFileSync('git', args, { cwd, input, maxBuffer: MAX_GIT_OUTPUT, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new GebeError('git is not installed (on PATH), which --against <ref> needs', { hint: 'install git, or pass --against a directory or a tarball' });
    const detail = e.stderr?.toString('utf8').trim().split('\n')[0] ?? e.message;
    throw new GebeError(`git ${args.slice(0, 2).join(' ')} failed in ${cwd}: ${detail}`, { hint: 'check that the path is inside a git work tree and the ref exists (git fetch it in CI: actions/checkout with fetch-depth: 0)' });
  }
}

function fakeStats(entry: TreeEntry): fs.Stats {
  return { isDirectory: () => entry.kind === 'dir', isFile: () => entry.kind === 'file', isSymbolicLink: () => false, size: entry.size } as fs.Stats;
}

function fakeDirent(name: string, entry: TreeEntry): fs.Dirent {
  return { name, isDirectory: () => entry.kind === 'dir', isFile: () => entry.kind === 'file', isSymbolicLink: () => false } as fs.Dirent;
}

function enoent(p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: 'ENOENT' });
}

export class GitTreeFileSystem implements ScanFileSystem {
  private readonly entries = new Map<string, TreeEntry>();
  private readonly children = new Map<string, string[]>();
  private readonly blobs = new Map<string, Buffer>();

  /**
   * @param top the work tree's top directory (absolute)
   * @param ref the commit-ish to read
   * @param under the directory (relative to top, '' for all) whose tree is listed
   */
  constructor(private readonly top: string, readonly ref: string, under: string) {
    this.addDir(top);
    const args = ['ls-tree', '-r', '-l', '-z', '--full-tree', ref];
    if (under) args.push('--', under);
    const out = git(top, args).toString('utf8');
    for (const record of out.split('\0')) {
      if (!record) continue;
      // <mode> SP <type> SP <object> SP+ <size> TAB <path>
      const tab = record.indexOf('\t');
      const [mode, type, oid, size] = record.slice(0, tab).split(/\s+/);
      if (type !== 'blob' || mode === '120000') continue; // submodules and symlinks are not followed
      const abs = path.join(top, record.slice(tab + 1));
      this.entries.set(abs, { kind: 'file', oid, size: Number(size) });
      this.link(abs);
    }
  }

  private addDir(abs: string): void {
    if (!this.entries.has(abs)) {
      this.entries.set(abs, { kind: 'dir', size: 0 });
      this.children.set(abs, []);
    }
  }

  private link(abs: string): void {
    const parent = path.dirname(abs);
    if (parent === abs || !parent.startsWith(this.top)) return;
    const known = this.entries.has(parent);
    this.addDir(parent);
    this.children.get(parent)!.push(path.basename(abs));
    if (!known) this.link(parent);
  }

  private get(p: string): TreeEntry {
    const entry = this.entries.get(path.resolve(p));
    if (!entry) throw enoent(p);
    return entry;
  }

  /** Reads many blobs with one git process (a scan reads a config per model). */
  prefetch(paths: string[]): void {
    const wanted = new Map<string, string>();
    for (const p of paths) {
      const entry = this.entries.get(path.resolve(p));
      // An oversized config is reported from its size (the scanner stats first): never read it.
      if (entry?.oid && entry.size <= MAX_CONFIG_BYTES && !this.blobs.has(entry.oid)) wanted.set(entry.oid, entry.oid);
    }
    if (wanted.size === 0) return;
    const out = git(this.top, ['cat-file', '--batch'], [...wanted.keys()].join('\n') + '\n');
    let at = 0;
    while (at < out.length) {
      const nl = out.indexOf(0x0a, at);
      const [oid, , size] = out.subarray(at, nl).toString('latin1').split(' ');
      const start = nl + 1;
      const end = start + Number(size);
      this.blobs.set(oid!, out.subarray(start, end));
      at = end + 1;
    }
  }

  /** Files under a directory, absolute paths. */
  filesUnder(dir: string, name?: string): string[] {
    const root = path.resolve(dir);
    const out: string[] = [];
    for (const [p, e] of this.entries) {
      if (e.kind === 'file' && (p.startsWith(`${root}${path.sep}`)) && (name === undefined || path.basename(p) === name)) out.push(p);
    }
    return out;
  }

  stat = (p: string): fs.Stats => fakeStats(this.get(p));
  lstat = (p: string): fs.Stats => fakeStats(this.get(p));
  realpath = (p: string): string => {
    this.get(p);
    return path.resolve(p);
  };
  readdir = (p: string): fs.Dirent[] => {
    const abs = path.resolve(p);
    if (this.get(p).kind !== 'dir') throw Object.assign(new Error(`ENOTDIR: ${p}`), { code: 'ENOTDIR' });
    return (this.children.get(abs) ?? []).map((name) => fakeDirent(name, this.entries.get(path.join(abs, name))!));
  };
  readFile = (p: string): Buffer => {
    const entry = this.get(p);
    if (entry.kind !== 'file') throw Object.assign(new Error(`EISDIR: ${p}`), { code: 'EISDIR' });
    if (!this.blobs.has(entry.oid!)) this.blobs.set(entry.oid!, git(this.top, ['cat-file', 'blob', entry.oid!]));
    return this.blobs.get(entry.oid!)!;
  };
  readHead = (p: string, length: number): Buffer => this.readFile(p).subarray(0, length);
}
