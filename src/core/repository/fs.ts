/**
 * The file-system calls the scanner makes, behind a small interface so a test can make one path
 * fail the way a permission error does (root ignores file modes, so chmod cannot simulate it).
 * Synchronous on purpose: scanning is thousands of tiny stat/read calls, where sync calls are fastest.
 */
import fs from 'node:fs';

export interface ScanFileSystem {
  stat(path: string): fs.Stats;
  lstat(path: string): fs.Stats;
  readdir(path: string): fs.Dirent[];
  realpath(path: string): string;
  readFile(path: string): Buffer;
  /** Reads at most `length` bytes from the start of the file. */
  readHead(path: string, length: number): Buffer;
}

export const nodeFileSystem: ScanFileSystem = {
  stat: (p) => fs.statSync(p),
  lstat: (p) => fs.lstatSync(p),
  readdir: (p) => fs.readdirSync(p, { withFileTypes: true }),
  realpath: (p) => fs.realpathSync.native(p),
  readFile: (p) => fs.readFileSync(p),
  readHead: (p, length) => {
    const fd = fs.openSync(p, 'r');
    try {
      const buf = Buffer.alloc(length);
      const n = fs.readSync(fd, buf, 0, length, 0);
      return buf.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
  },
};

/** A short, user-facing reason for a file-system error (EACCES → "permission denied"). */
export function describeFsError(err: unknown): { code: string; reason: string } {
  const code = (err as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
  const reasons: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ELOOP: 'too many levels of symbolic links (a symlink loop)',
    ENOENT: 'no such file or directory (a dangling symlink?)',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    EIO: 'input/output error',
  };
  return { code, reason: reasons[code] ?? (err instanceof Error ? err.message : String(err)) };
}
