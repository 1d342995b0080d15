/**
 * Writes a fixed config back to disk so that a reader (a polling server, an editor, a crash
 * half-way) sees the old file or the new one, never a truncated mix: the text goes to a temporary
 * file in the same directory (same file system, so the rename is atomic), then replaces it.
 */
import fs from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, text: string): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.gebe-${process.pid}-${Date.now()}.tmp`);
  // Keep the file's permission bits: a fix must not make a config world-writable or unreadable.
  const mode = fs.statSync(file).mode & 0o7777;
  try {
    fs.writeFileSync(temp, text, { mode, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}
