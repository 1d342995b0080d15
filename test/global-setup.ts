import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every test file's temporary directories (and those of the servers and Python processes it
 * starts) go under one directory per run, removed when the run ends: a test that forgets its
 * own, or one killed by a timeout, leaves nothing behind in the machine's /tmp.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-test-run-'));
  process.env.TMPDIR = dir; // os.tmpdir() of the test workers and of every process they start
  return () => rmSync(dir, { recursive: true, force: true });
}
