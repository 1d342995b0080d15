/**
 * Unpacking tar archives (plain, gzip, bzip2 or xz), with the system's tar: the baselines of
 * `validate --against` and Python models' packed environments (EXECUTION_ENV_PATH). GNU tar refuses
 * absolute and ../ member names by default; --no-same-owner keeps root from creating files owned by
 * whoever made the archive.
 */
import { execFile, execFileSync } from 'node:child_process';

/** The names an archive may have. */
export const TARBALL = /\.(tar|tgz|tar\.gz|tar\.bz2|tbz2|tar\.xz|txz)$/i;

const args = (file: string, dest: string): string[] => ['-xf', file, '-C', dest, '--no-same-owner'];

/** tar's first line of complaint, for a message that names the archive. */
function complaint(stderr: Buffer | string | undefined, err: unknown): string {
  const text = stderr === undefined ? '' : String(stderr).trim();
  return text.split('\n')[0] || (err as Error).message || String(err);
}

/** Unpacks `file` into the existing directory `dest`; throws an Error with tar's complaint. */
export function unpackTarballSync(file: string, dest: string): void {
  try {
    execFileSync('tar', args(file, dest), { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(complaint((err as { stderr?: Buffer }).stderr, err));
  }
}

/** As unpackTarballSync, without holding the event loop (a packed environment may take a while). */
export function unpackTarball(file: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('tar', args(file, dest), { maxBuffer: 1 << 20 }, (err, _stdout, stderr) => (err ? reject(new Error(complaint(stderr, err))) : resolve()));
  });
}
