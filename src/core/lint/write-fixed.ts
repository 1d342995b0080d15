/**
 * Writes a config that `--fix` changed: atomically (a temporary file in the same directory, then a
 * rename, so a crash or a full disk leaves the old file whole), and only inside the tree being
 * validated: a config that is a symlink is written at its target when that stays inside `root`,
 * and refused when it leads out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isWithin } from '../repository/inside.js';

export type WriteOutcome = { ok: true } | { ok: false; reason: string };

export function writeFixedConfig(file: string, text: string, root: string): WriteOutcome {
  let target: string;
  let realRoot: string;
  try {
    realRoot = fs.realpathSync.native(root);
    target = fs.realpathSync.native(file);
  } catch (err) {
    return { ok: false, reason: `cannot resolve it: ${(err as Error).message}` };
  }
  if (!isWithin(realRoot, target)) return { ok: false, reason: 'it is a symlink out of the repository; gebe does not write there' };
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.gebe-fix-${process.pid}-${Date.now()}`);
  try {
    const mode = fs.statSync(target).mode & 0o7777;
    fs.writeFileSync(temp, text, { mode, flag: 'wx' });
    fs.renameSync(temp, target);
    return { ok: true };
  } catch (err) {
    fs.rmSync(temp, { force: true });
    return { ok: false, reason: (err as Error).message };
  }
}
