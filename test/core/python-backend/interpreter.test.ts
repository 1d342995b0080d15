/** Which Python a Python-backend model runs with, and the load errors that say what to install. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveSupport } from '../../../src/core/server/serve-support.js';
import { findInterpreter } from '../../../src/core/python-backend/interpreter.js';
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
  it('takes python3 from PATH, and says what to install when there is none', () => {
    const bin = path.join(fakeEnv(path.join(root, 'onpath')), 'bin');
    expect(findInterpreter(root, config(), `/nonexistent${path.delimiter}${bin}`)).toEqual({ command: path.join(bin, 'python3'), origin: 'python3 on PATH' });
    expect(() => findInterpreter(root, config(), '/nonexistent')).toThrow(/model 'pre' \(backend "python"\) needs a Python 3 interpreter, and there is no python3 on PATH/);
  });

  it('takes <env>/bin/python3 from EXECUTION_ENV_PATH, with $$TRITON_MODEL_DIRECTORY as the model directory', () => {
    const model = path.join(root, 'pre');
    fakeEnv(path.join(model, 'env'));
    expect(findInterpreter(model, config('$$TRITON_MODEL_DIRECTORY/env'), '').command).toBe(path.join(model, 'env', 'bin', 'python3'));
  });

  it('refuses a packed environment, a missing directory and one without bin/python3, saying how to fix each', () => {
    expect(() => findInterpreter(root, config('$$TRITON_MODEL_DIRECTORY/python3.10.tar.gz'))).toThrow(/names the packed environment .*python3\.10\.tar\.gz; gebe does not unpack environments/);
    expect(() => findInterpreter(root, config('missing-env'))).toThrow(/names .*missing-env, which is not a directory/);
    mkdirSync(path.join(root, 'empty-env'));
    expect(() => findInterpreter(root, config('empty-env'))).toThrow(/empty-env has no executable bin\/python3/);
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
