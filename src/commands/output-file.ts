/**
 * The files a command writes besides its report on stdout (perf's -f CSV and profile export, the
 * HTML reports, compare's outputs): one wording for a path that cannot be written, and one writer
 * that makes the path's folders first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../errors.js';

/** The error for an output file that could not be written (`what`: "CSV", "HTML report", ...). */
export function cannotWrite(what: string, file: string, err: unknown): GebeError {
  return new GebeError(`cannot write the ${what} to ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); choose a writable path`);
}

/** Makes the file's folders, then writes it; a failure is cannotWrite's error. */
export function writeOutputFile(file: string, data: string | Uint8Array, what: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data);
  } catch (err) {
    throw cannotWrite(what, file, err);
  }
}

/** Makes the file's folders for a writer of its own (a file written in pieces); a failure is cannotWrite's error. */
export function prepareOutputFile(file: string, what: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (err) {
    throw cannotWrite(what, file, err);
  }
}
