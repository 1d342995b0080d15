/**
 * Finds one model in a model repository for in-process runs, the way `gebe serve` reads it (the
 * server's DiskModelSource: config parsed and checked, versions chosen by the version policy), and
 * picks --model-version or the latest served version. Problems name the path and the fix.
 */
import { existsSync, statSync } from 'node:fs';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';
import { DiskModelSource } from '../server/disk-source.js';

export interface RepositoryModelRef {
  dir: string;
  version: string;
  config: ModelConfig;
}

export async function resolveRepositoryModel(repository: string, model: string, requestedVersion?: string): Promise<RepositoryModelRef> {
  if (!existsSync(repository) || !statSync(repository).isDirectory()) {
    throw new GebeError(`--model-repository ${repository}: no such directory; point it at the folder that holds <model>/config.pbtxt`);
  }
  const source = new DiskModelSource(repository);
  const found = await source.read(model);
  if (!found) {
    const models = await source.list();
    const known = models.length ? `; it has ${models.map((m) => `"${m}"`).join(', ')}` : '';
    throw new GebeError(`model "${model}" is not in ${repository}${known}; check -m`);
  }
  if (found.errors.length > 0 || !found.config) {
    throw new GebeError(`model "${model}" cannot load: ${found.errors[0] ?? 'config.pbtxt could not be read'}; run \`gebe validate ${repository}\` for every problem`);
  }
  if (found.versions.length === 0) {
    throw new GebeError(`model "${model}" has no version to serve in ${found.dir}; put the model file in ${found.dir}/1/ (or check its version_policy)`);
  }
  const version = requestedVersion ?? found.versions[found.versions.length - 1]!;
  if (!found.versions.includes(version)) {
    throw new GebeError(`model "${model}" has no version ${version} in ${found.dir}; it has ${found.versions.join(', ')}; check --model-version`);
  }
  return { dir: found.dir, version, config: found.config };
}
