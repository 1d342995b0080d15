/** Which Python a Python-backend model runs with, and the load errors that say what to install. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveSupport } from '../../../src/core/server/serve-support.js';
import { findInterpreter } from '../../../src/core/python-backend/interpreter.js';
import { environmentCache } from '../../../src/core/python-backend/packed-environment.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'gebe-interpreter-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = (env?: string): ModelConfig => ({
  name: 'pre', backend: 'python',
  ...(env === undefined ? {} : { parameters: { EXECUTION_ENV_PATH: { string_value: env } } }),
}) as ModelConfig;

function fakeEnv(dir: string): string {
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  writeFileSync(path.join(dir, 'bin', 'python3'), '#!/bin/sh\n');
  chmodSync(path.join(dir, 'bin', 'python3'), 0o755);
  return dir;
}

describe('findInterpreter', () => {
  it('takes python3 from PATH, and says what to install when there is none', async () => {
    const bin = path.join(fakeEnv(path.join(root, 'onpath')), 'bin');
    expect(await findInterpreter(root, config(), `/nonexistent${path.delimiter}${bin}`)).toEqual({ command: path.join(bin, 'python3'), origin: 'python3 on PATH' });
    await expect(findInterpreter(root, config(), '/nonexistent')).rejects.toThrow(/model 'pre' \(backend "python"\) needs a Python 3 interpreter, and there is no python3 on PATH/);
  });

  it('takes <env>/bin/python3 from EXECUTION_ENV_PATH, with $$TRITON_MODEL_DIRECTORY as the model directory, its bin/ and lib/ first on the paths', async () => {
    const model = path.join(root, 'pre');
    const env = fakeEnv(path.join(model, 'env'));
    const found = await findInterpreter(model, config('$$TRITON_MODEL_DIRECTORY/env'), '/usr/bin');
    expect(found.command).toBe(path.join(env, 'bin', 'python3'));
    expect(found.env?.PATH).toBe(`${path.join(env, 'bin')}${path.delimiter}/usr/bin`);
    expect(found.env?.LD_LIBRARY_PATH?.split(path.delimiter)[0]).toBe(path.join(env, 'lib'));
  });

  it('unpacks a packed environment once into a private cache, and again when the archive changes', async () => {
    const model = path.join(root, 'packed');
    const env = fakeEnv(path.join(root, 'to-pack'));
    mkdirSync(model);
    const archive = path.join(model, 'python3.11.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', env, '.']);
    const first = await findInterpreter(model, config('$$TRITON_MODEL_DIRECTORY/python3.11.tar.gz'), '');
    const unpacked = path.dirname(path.dirname(first.command));
    expect(path.dirname(unpacked)).toBe(environmentCache());
    expect(statSync(environmentCache()).mode & 0o777).toBe(0o700);
    expect(first.origin).toBe(`EXECUTION_ENV_PATH ${archive} (unpacked in ${unpacked})`);
    expect(readdirSync(environmentCache()).filter((d) => d.includes('.partial-'))).toEqual([]);
    // Two loads at once, and later ones, share the one unpacking.
    const again = await Promise.all([1, 2].map(() => findInterpreter(model, config('$$TRITON_MODEL_DIRECTORY/python3.11.tar.gz'), '')));
    expect(again.map((i) => i.command)).toEqual([first.command, first.command]);
    writeFileSync(path.join(env, 'extra'), 'a changed environment');
    execFileSync('tar', ['-czf', archive, '-C', env, '.']);
    utimesSync(archive, new Date(), new Date(Date.now() + 5000));
    const changed = await findInterpreter(model, config('$$TRITON_MODEL_DIRECTORY/python3.11.tar.gz'), '');
    expect(changed.command).not.toBe(first.command);
    expect(readFileSync(path.join(path.dirname(path.dirname(changed.command)), 'extra'), 'utf8')).toBe('a changed environment');
  });

  it('refuses an archive tar cannot read, a missing environment and one without bin/python3, saying how to fix each', async () => {
    writeFileSync(path.join(root, 'broken.tar.gz'), 'not an archive');
    await expect(findInterpreter(root, config('$$TRITON_MODEL_DIRECTORY/broken.tar.gz'))).rejects.toThrow(/model 'pre': cannot unpack the packed environment .*broken\.tar\.gz \(parameter EXECUTION_ENV_PATH\): tar: This does not look like a tar archive$/);
    await expect(findInterpreter(root, config('missing-env'))).rejects.toThrow(/names .*missing-env, which is neither a directory nor a tar archive/);
    await expect(findInterpreter(root, config('missing.tar.gz'))).rejects.toThrow(/names .*missing\.tar\.gz, which is neither a directory nor a tar archive/);
    mkdirSync(path.join(root, 'empty-env'));
    await expect(findInterpreter(root, config('empty-env'))).rejects.toThrow(/empty-env has no executable bin\/python3/);
    const empty = path.join(root, 'no-python.tar');
    execFileSync('tar', ['-cf', empty, '-C', path.join(root, 'empty-env'), '.']);
    await expect(findInterpreter(root, config('no-python.tar'))).rejects.toThrow(/no-python\.tar \(unpacked in .*\) has no executable bin\/python3/);
  });
});

describe('serve support of Python models', () => {
  it('serves backend "python" and ensembles, decoupled or not, and refuses decoupled mode elsewhere with a clear reason', () => {
    expect(serveSupport(config()).refusal).toBeUndefined();
    const decoupled = { ...config(), model_transaction_policy: { decoupled: true } } as ModelConfig;
    expect(serveSupport(decoupled).refusal).toBeUndefined();
    const onnx = { ...decoupled, backend: undefined, platform: 'onnxruntime_onnx' } as ModelConfig;
    expect(serveSupport(onnx).refusal).toBe(
      'model_transaction_policy { decoupled: true } is implemented by gebe serve for Python-backend models and ensembles only: its engines send exactly one response per request; `gebe validate` still checks its config');
    const ensemble = { ...decoupled, backend: undefined, platform: 'ensemble' } as ModelConfig;
    expect(serveSupport(ensemble).refusal).toBeUndefined();
  });
});
