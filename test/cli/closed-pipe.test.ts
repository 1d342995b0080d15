/** `gebe … | head -1`: a reader that closes stdout early ends the command quietly with exit 0. */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const tsxLoader = pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/esm/index.mjs')).href;

/** Runs gebe with its stdout's reading end closed before the program writes a byte. */
function runWithClosedStdout(args: string[], cwd = repoRoot): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  const child = spawn(process.execPath, ['--import', tsxLoader, path.join(repoRoot, 'test/helpers/cli-process.ts'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err })));
}

describe('a closed stdout', () => {
  it('ends --help with exit 0 and nothing on stderr', async () => {
    const r = await runWithClosedStdout(['--help']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('ends an in-process infer with exit 0 and nothing on stderr', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-closed-pipe-'));
    cpSync(path.join(repoRoot, 'templates/mnist'), path.join(dir, 'model_repository/mnist'), { recursive: true });
    const r = await runWithClosedStdout(['infer', '-m', 'mnist', '--input', path.join(repoRoot, 'templates/mnist/samples/digit-7.png')], dir);
    rmSync(dir, { recursive: true, force: true });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);
});
