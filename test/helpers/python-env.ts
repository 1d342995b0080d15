/**
 * The Python the Python-backend tests use: .venv-test/ (made by scripts/python-env.sh, npm's
 * pretest), put first on PATH so the stubs gebe starts find it as `python3`. Without it the tests
 * skip with a message, except in CI (CI=true), where they must run: there a missing venv fails.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './onnx-fixtures.js';

export const testVenv = path.join(repoRoot, '.venv-test');

export interface PythonForTests {
  available: boolean;
  /** Why the tests skip, when they do. */
  reason?: string;
}

export function pythonForTests(): PythonForTests {
  const bin = path.join(testVenv, 'bin');
  if (existsSync(path.join(bin, 'python3'))) {
    if (!process.env.PATH?.startsWith(`${bin}${path.delimiter}`)) process.env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
    return { available: true };
  }
  const reason = `no ${testVenv}: run \`bash scripts/python-env.sh\` (npm test does) to make it`;
  if (process.env.CI === 'true') throw new Error(`the Python-backend tests must run in CI, but there is ${reason}`);
  console.warn(`skipping the Python-backend tests: ${reason}`);
  return { available: false, reason };
}
