/**
 * Finds one model in a model repository for in-process runs: its directory, the version to load
 * (--model-version or the latest), and its parsed config.pbtxt. Problems name the path and the fix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { parseModelConfig } from '../config/index.js';
import type { ModelConfig } from '../config/model-config.js';

export interface RepositoryModelRef {
  dir: string;
  version: string;
  config: ModelConfig;
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

export function resolveRepositoryModel(repository: string, model: string, requestedVersion?: string): RepositoryModelRef {
  if (!isDir(repository)) {
    throw new GebeError(`--model-repository ${repository}: no such directory; point it at the folder that holds <model>/config.pbtxt`);
  }
  const dir = path.join(repository, model);
  if (!isDir(dir)) {
    const models = readdirSync(repository).filter((n) => existsSync(path.join(repository, n, 'config.pbtxt')));
    const known = models.length ? `; it has ${models.map((m) => `"${m}"`).join(', ')}` : '';
    throw new GebeError(`model "${model}" is not in ${repository}${known}; check -m`);
  }
  const file = path.join(dir, 'config.pbtxt');
  if (!existsSync(file)) throw new GebeError(`${file} is missing; create it with \`gebe init ${model}\``);
  const parsed = parseModelConfig(readFileSync(file, 'utf8'), file);
  const firstError = parsed.diagnostics.find((d) => d.severity === 'error');
  if (firstError) {
    throw new GebeError(`${firstError.file}:${firstError.line}:${firstError.column} ${firstError.message}; run \`gebe validate ${repository}\` for every problem`);
  }
  const versions = readdirSync(dir).filter((n) => /^(0|[1-9]\d*)$/.test(n) && isDir(path.join(dir, n))).sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new GebeError(`model "${model}" has no version directory; put the model file in ${path.join(dir, '1')}/`);
  const version = requestedVersion ?? versions[versions.length - 1]!;
  if (!versions.includes(version)) {
    throw new GebeError(`model "${model}" has no version ${version} in ${dir}; it has ${versions.join(', ')}; check --model-version`);
  }
  return { dir, version, config: parsed.config };
}
