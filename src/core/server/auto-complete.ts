/**
 * Triton's auto-complete of a Python model's config, checked as any config is: model.py's
 * auto_complete_config() runs (python-backend/autoCompletePythonConfig), and what it returns goes
 * through the same checks as config.pbtxt (the `gebe validate` rules, serve's refusals), its
 * findings naming where it came from. Serve's model manager and the in-process tools (infer, perf,
 * warmup, tune) both load through here.
 */
import path from 'node:path';
import type { ModelConfig } from '../config/model-config.js';
import { autoCompletePythonConfig } from '../python-backend/index.js';
import { configFromObject } from './config-json.js';
import { DiskModelSource } from './disk-source.js';
import type { Logger } from './logger.js';
import type { ModelSource, RepositoryModel } from './model-source.js';
import { serveSupport } from './serve-support.js';

type ReadModel = RepositoryModel & { config: ModelConfig };

/**
 * `model` with its config as model.py completes it (on its newest version), or as it is when there
 * was nothing to complete; throws with the reason a completed config cannot load. The fingerprint
 * stays that of the files on disk, which poll mode compares.
 */
export async function completePythonConfig(source: ModelSource, model: ReadModel, log: Logger): Promise<ReadModel> {
  const newest = model.versions[model.versions.length - 1]!;
  const raw = await autoCompletePythonConfig(model.dir, newest, model.config, log);
  if (raw === undefined) return model;
  const config = configFromObject(raw, model.name, 'auto-complete');
  const completed = await source.read(model.name, config, 'auto-complete');
  if (!completed?.config) throw new Error(`the model directory of '${model.name}' went away during its load`);
  if (completed.errors.length > 0) throw new Error(completed.errors.join('; '));
  const refusal = serveSupport(completed.config).refusal;
  if (refusal) throw new Error(refusal);
  return { ...completed, config: completed.config, fingerprint: model.fingerprint };
}

/** The same, for a model directory the in-process tools load a version of. */
export async function completeConfigOnDisk(modelDir: string, version: string, config: ModelConfig, log: Logger): Promise<ModelConfig> {
  const dir = path.resolve(modelDir);
  const model: ReadModel = { name: config.name ?? path.basename(dir), dir, config, versions: [version], errors: [], fingerprint: '' };
  return (await completePythonConfig(new DiskModelSource(path.dirname(dir)), model, log)).config;
}
