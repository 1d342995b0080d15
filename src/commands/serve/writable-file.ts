/**
 * A file serve writes only later (a trace file, the log file) is checked at start, so that a path
 * it could never write is refused with exit 2 instead of failing at the first line or trace.
 * `what` names the flag and the path as the user gave them, for the messages; `example` is a file
 * name the hint suggests when the path is a directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';

export function checkWritableFile(file: string, what: string, example: string): void {
  if (!fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`${what}: its directory does not exist`, 'create it first, or name a file in an existing directory');
  }
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`${what}: that is a directory`, `name a file in it, e.g. ${path.join(file, example)}`);
  }
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
  } catch {
    throw new UsageError(`${what}: its directory is not writable by this user`, 'name a file in a directory you can write');
  }
}
