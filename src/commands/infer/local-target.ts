/** An InferTarget in this process: the model loaded from the repository into the executor. */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { parseModelConfig } from '../../core/config/index.js';
import type { ModelConfig } from '../../core/config/model-config.js';
import { loadModel } from '../../core/executor/index.js';
import { withPythonModels } from '../../core/python-backend/index.js';
import { silentLogger } from '../../core/server/logger.js';
import { completeConfigOnDisk } from '../../core/server/auto-complete.js';
import type { InferTensor, LoadedModel } from '../../core/executor/types.js';
import { runToFinal } from '../../core/executor/decoupled.js';
import { inputFormats, readLabels, type InferTarget } from './target.js';

export interface LocalModel {
  modelDir: string;
  configFile: string;
  config: ModelConfig;
  version: string;
}

/** Finds the model in the repository, parses its config and picks the version (highest by default). */
export function findLocalModel(repo: string, name: string, version: string | undefined, cwd: string): LocalModel {
  const modelDir = path.join(repo, name);
  const shown = path.relative(cwd, modelDir) || '.';
  const configFile = path.join(modelDir, 'config.pbtxt');
  if (!fs.existsSync(configFile)) {
    const models = fs.existsSync(repo) ? fs.readdirSync(repo).filter((d) => fs.existsSync(path.join(repo, d, 'config.pbtxt'))) : [];
    throw new GebeError(`model "${name}" is not in ${path.relative(cwd, repo) || '.'} (no ${shown}/config.pbtxt)`, {
      hint: models.length > 0 ? `models there: ${models.sort().join(', ')}; or pass --model-repository <dir>` : 'pass --model-repository <dir>, or create the model with gebe init',
    });
  }
  const shownConfig = path.relative(cwd, configFile);
  const result = parseModelConfig(fs.readFileSync(configFile, 'utf8'), shownConfig);
  const first = result.diagnostics.find((d) => d.severity === 'error');
  if (first) {
    throw new GebeError(`${first.file}:${first.line}:${first.column}: ${first.message}`, { hint: 'fix config.pbtxt first (gebe validate lists every problem)' });
  }
  const versions = fs.readdirSync(modelDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^[1-9]\d*$/.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(a) - Number(b));
  const chosen = version ?? versions.at(-1);
  if (!chosen || !versions.includes(chosen)) {
    throw new GebeError(version ? `model "${name}" has no version ${version}` : `model "${name}" has no version directory`, {
      hint: versions.length > 0 ? `versions there: ${versions.join(', ')}` : `put the model file in ${shown}/1/`,
    });
  }
  return { modelDir, configFile, config: { ...result.config, name: result.config.name ?? name }, version: chosen };
}

export async function openLocalTarget(repo: string, name: string, version: string | undefined, cwd: string): Promise<InferTarget> {
  const local = findLocalModel(repo, name, version, cwd);
  // backend "python" runs in its stub process here too (its log lines go nowhere: infer owns stdout).
  const model: LoadedModel = await withPythonModels(loadModel, { log: silentLogger, completeConfig: completeConfigOnDisk })(local.modelDir, local.version, local.config);
  return {
    description: { name: model.name, version: model.version, maxBatchSize: model.maxBatchSize, inputs: [...model.inputs], outputs: [...model.outputs] },
    formats: inputFormats(local.config),
    labels: readLabels(local.modelDir, local.config),
    config: local.config,
    modelDir: local.modelDir,
    configFile: local.configFile,
    gears: [...model.gears],
    compile: (shapes) => model.compile(shapes),
    where: `in process, ${model.engine} engine`,
    // A decoupled model's request (gebe warmup's) runs to its final flag: the last outputs it sent.
    infer: model.decoupled
      ? async (inputs, outputs) => {
        let last: InferTensor[] = [];
        await runToFinal((on) => model.inferDecoupled!({ inputs, outputs }, on), (r) => (last = r.outputs));
        return last;
      }
      : async (inputs, outputs) => (await model.infer({ inputs, outputs })).outputs,
    // A decoupled model (a Python one) streams its responses here as over gRPC.
    ...(model.inferDecoupled ? {
      stream: (inputs, outputs, onResponse) => model.inferDecoupled!({ inputs, outputs }, (r) => {
        if (r.error) onResponse({ error: r.error.message });
        else if (r.response) onResponse({ outputs: r.response.outputs });
      }),
    } satisfies Pick<InferTarget, 'stream'> : {}),
    close: () => model.unload(),
  };
}
