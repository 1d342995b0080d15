/**
 * Packed Python environments (EXECUTION_ENV_PATH naming a .tar.gz, as conda-pack makes them, or
 * any tar archive): unpacked once into a cache directory of this user's, and reused while the
 * archive is unchanged (Triton unpacks one per model load into a temporary directory). The cache
 * key is the archive's real path, size and modification time, so a changed archive unpacks again.
 * An archive unpacks into a directory of its own first and is renamed into place when complete, so
 * a crash or a second gebe unpacking the same archive never leaves a half environment in use.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unpackTarball } from '../repository/tarball.js';

/** Marks a cache directory whose unpacking finished. */
const COMPLETE = '.gebe-unpacked';
/** Unpackings in progress in this process, by cache key (two models may share an archive). */
const unpacking = new Map<string, Promise<string>>();

/** Where this user's unpacked environments live (os.tmpdir()/gebe-python-envs-<uid>). */
export function environmentCache(): string {
  return path.join(os.tmpdir(), `gebe-python-envs-${process.getuid?.() ?? 'user'}`);
}

/** The directory `archive` unpacks into (unpacking it when it has not been, or changed). */
export function unpackEnvironment(archive: string): Promise<string> {
  const real = fs.realpathSync(archive);
  const stat = fs.statSync(real);
  const key = createHash('sha256').update(`${real}\0${stat.size}\0${stat.mtimeMs}`).digest('hex').slice(0, 24);
  let done = unpacking.get(key);
  if (!done) {
    done = unpack(real, key).finally(() => unpacking.delete(key));
    unpacking.set(key, done);
  }
  return done;
}

async function unpack(archive: string, key: string): Promise<string> {
  const root = cacheRoot();
  const dir = path.join(root, key);
  if (fs.existsSync(path.join(dir, COMPLETE))) return dir;
  const partial = fs.mkdtempSync(path.join(root, `${key}.partial-`));
  try {
    await unpackTarball(archive, partial);
    fs.writeFileSync(path.join(partial, COMPLETE), `${archive}\n`);
    // A directory left by an unpacking that did not finish is replaced; a complete one (another
    // gebe's, just now) is kept.
    if (fs.existsSync(dir) && !fs.existsSync(path.join(dir, COMPLETE))) fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(partial, dir);
    } catch (err) {
      if (!fs.existsSync(path.join(dir, COMPLETE))) throw err;
    }
    return dir;
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
}

/**
 * The cache directory, made private: in a shared temporary directory another user could otherwise
 * plant an "environment" there for gebe to run.
 */
function cacheRoot(): string {
  const root = environmentCache();
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(root);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new Error(`${root} is not a private directory of this user's (mode ${(stat.mode & 0o777).toString(8)}); remove it and load again`);
  }
  return root;
}
