/**
 * Reads a config file defensively: too-large, binary and unreadable files become scan problems and
 * invalid UTF-8 is decoded with replacement characters (and remembered) so linting can go on.
 */
import path from 'node:path';
import type { ScanFileSystem } from './fs.js';
import { describeFsError } from './fs.js';
import type { ConfigSource, ScanProblem } from './types.js';

/** Real configs are kilobytes; beyond this the file is a mistake (a model or a log saved as config). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Position of the first byte that is not part of a valid UTF-8 sequence, or undefined. */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) { i++; continue; }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) { need = 1; min = 0x80; }
    else if (b >= 0xe0 && b <= 0xef) { need = 2; min = 0x800; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; min = 0x10000; }
    else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return undefined;
}

function lineColumnOfByte(bytes: Uint8Array, offset: number): { line: number; column: number; offset: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) { line++; lineStart = i + 1; }
  // Column in characters of the valid text before the bad byte (the bytes before it are valid UTF-8).
  const column = Buffer.from(bytes.subarray(lineStart, offset)).toString('utf8').length + 1;
  const charOffset = Buffer.from(bytes.subarray(0, offset)).toString('utf8').length;
  return { line, column, offset: charOffset };
}

export function readConfigSource(fs: ScanFileSystem, file: string, display: string, problems: ScanProblem[]): ConfigSource {
  const source: ConfigSource = { path: file, display };
  const problem = (kind: ScanProblem['kind'], message: string) => problems.push({ kind, path: file, display, message });
  let bytes: Buffer;
  try {
    const stat = fs.stat(file);
    if (!stat.isFile()) {
      problem('unreadable', `${path.basename(file)} is ${stat.isDirectory() ? 'a directory' : 'not a regular file'}: the config must be a text file`);
      return source;
    }
    if (stat.size > MAX_CONFIG_BYTES) {
      problem('too-large', `${path.basename(file)} is ${formatSize(stat.size)}, over the ${formatSize(MAX_CONFIG_BYTES)} limit for a config; is it really a config.pbtxt?`);
      return source;
    }
    bytes = fs.readFile(file);
  } catch (err) {
    const { code, reason } = describeFsError(err);
    problem(code === 'ELOOP' ? 'symlink-loop' : 'unreadable', `cannot read ${path.basename(file)}: ${reason}`);
    return source;
  }
  if (bytes.subarray(0, 8192).includes(0)) {
    problem('binary', `${path.basename(file)} is a binary file (it contains NUL bytes), not a text-format config`);
    return source;
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad !== undefined) source.invalidUtf8 = lineColumnOfByte(bytes, bad);
  source.text = bytes.toString('utf8');
  return source;
}
