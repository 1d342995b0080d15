/**
 * The executor facade: loads a model version from a Triton-style model directory onto the
 * native scheduler and the engine its file needs (.onnx → cpu, .om → ascend), and returns a
 * LoadedModel (types.ts) that serve, perf, warmup and infer program against.
 */
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { modelShapeRule, type ModelConfig, type ModelTensorConfig } from '../config/model-config.js';
import { datatypeFromCode, datatypeFromConfig } from '../kserve/datatypes.js';
import { nativeExecutor, type NativeMetadata, type NativeTensorDesc } from './executor-addon.js';
import { nativeOptions, type LoadOverrides } from './load-options.js';
import { ExecutorModel } from './loaded-model.js';
import { sequenceBatching } from './sequence-options.js';
import { engineForModelFile, findModelFile } from './model-file.js';
import type { Datatype, EngineName, TensorMetadata } from './types.js';

export * from './types.js';
export { ExecutorModel } from './loaded-model.js';
export { engineForModelFile, findModelFile } from './model-file.js';
export { instanceCountOf, nativeOptions, parseDeviceIds, parseDynamicDimsGears, type LoadOverrides } from './load-options.js';
export { datatypeFromConfig, elementSize } from '../kserve/datatypes.js';

export async function loadModel(
  modelDir: string,
  version: string,
  config: ModelConfig,
  overrides: LoadOverrides = {},
): Promise<ExecutorModel> {
  const name = config.name ?? path.basename(path.resolve(modelDir));
  const modelFile = findModelFile(modelDir, version, config);
  const engine = engineForModelFile(modelFile) as EngineName;
  const executor = nativeExecutor();
  if (!executor.engines().some((e) => e.name === engine)) {
    throw new GebeError(`this gebe build has no ${engine} engine, which ${modelFile} needs`, {
      hint: 'rebuild gebe from a checkout that includes it (`npm run build:native`)',
    });
  }
  const options = nativeOptions(name, config, overrides);
  const sequence = sequenceBatching(name, modelDir, config);
  if (sequence) {
    // The strategy's batching fields drive the model scheduler's batcher across sequences.
    Object.assign(options, {
      dynamicBatching: options.maxBatchSize > 0,
      preferredBatchSizes: sequence.preferredBatchSizes,
      maxQueueDelayUs: sequence.maxQueueDelayUs,
      sequence: sequence.sequence,
    });
  }
  let model: ExecutorModel | undefined;
  const native = await executor
    .loadModel(modelFile, options, (results) => model?.onComplete(results))
    .catch((err: Error) => {
      throw new GebeError(`model '${name}' version ${version} failed to load from ${modelFile} (${engine} engine): ${err.message}`, {
        cause: err,
        hint:
          engine === 'ascend'
            ? 'check the .om file and the CANN installation (docs/ascend-engine.md)'
            : 'check the model file with `gebe validate`',
      });
    });
  const meta = native.metadata();
  const optionalInputs = new Set((config.input ?? []).filter((t) => t.optional).map((t) => t.name));
  try {
    const inputs = describeTensors(name, 'input', config.input, meta.inputs, config, modelFile);
    const outputs = describeTensors(name, 'output', config.output, meta.outputs, config, modelFile);
    model = new ExecutorModel(
      {
        name, version, engine, modelFile, maxBatchSize: Number(config.max_batch_size ?? 0), inputs, outputs, optionalInputs,
      },
      meta.gears,
      meta.instanceCount,
    );
  } catch (err) {
    native.unload();
    throw err;
  }
  // The native core checks every request against this contract (the config's shapes, not the
  // engine's), and fails an answer whose outputs break the config's promise, for every caller.
  native.setContract(
    version,
    model.inputs.map((t) => t.shape),
    model.outputs.map((t) => t.shape),
    model.inputs.map((t) => optionalInputs.has(t.name)),
  );
  model.attach(native);
  return model;
}

/**
 * The tensors clients see: the config's declarations (with -1 prepended for the batch
 * dimension when max_batch_size > 0), in the engine's order, checked against the engine; or
 * the engine's own when the config declares none.
 */
function describeTensors(
  model: string,
  kind: 'input' | 'output',
  declared: ModelTensorConfig[] | undefined,
  engine: NativeTensorDesc[],
  config: ModelConfig,
  modelFile: string,
): TensorMetadata[] {
  const batched = Number(config.max_batch_size ?? 0) > 0;
  const configByName = new Map((declared ?? []).map((t) => [t.name, t]));
  for (const t of declared ?? []) {
    if (!engine.some((e) => e.name === t.name)) {
      throw new GebeError(
        `config.pbtxt of '${model}' declares ${kind} '${t.name}', but ${path.basename(modelFile)} has ${kind}s ${engine.map((e) => `'${e.name}'`).join(', ')}`,
        { hint: `rename the ${kind} in config.pbtxt to the model's name for it` },
      );
    }
  }
  return engine.map((e) => {
    const engineType = datatypeFromCode(e.dtype);
    if (!engineType) throw new GebeError(`${kind} '${e.name}' of ${modelFile} has a datatype gebe cannot serve (code ${e.dtype})`);
    const t = configByName.get(e.name);
    if (!t) {
      const dims = batched ? [-1, ...e.dims.slice(1)] : e.dims;
      return { name: e.name, datatype: engineType, shape: dims };
    }
    const type = datatypeFromConfig(t.data_type) as Datatype | undefined;
    if (type !== engineType) {
      throw new GebeError(`config.pbtxt of '${model}' declares ${kind} '${t.name}' as ${t.data_type}, but the model file has ${engineType}`, {
        hint: `set data_type: TYPE_${engineType === 'BYTES' ? 'STRING' : engineType} for '${t.name}'`,
      });
    }
    const dims = t.dims.map(Number);
    const shape = batched ? [-1, ...dims] : dims;
    const rule = modelShapeRule(config, kind, t);
    if (rule === 'ragged') checkRaggedDims(model, t.name, e.dims);
    else if (rule === 'dims') checkDims(model, kind, t.name, shape, e.dims, batched);
    return { name: e.name, datatype: type, shape };
  });
}

/** A ragged input reaches the model as one dimension: the batched requests' elements one after another. */
function checkRaggedDims(model: string, name: string, engineDims: number[]): void {
  if (engineDims.length === 1) return;
  throw new GebeError(
    `config.pbtxt of '${model}' gives input '${name}' allow_ragged_batch, so the model gets the batch's elements as one dimension, but the model file has [${engineDims.join(',')}]`,
    { hint: `export the model with '${name}' as a 1-D tensor, or remove allow_ragged_batch` },
  );
}

function checkDims(model: string, kind: string, name: string, configShape: number[], engineDims: number[], batched: boolean): void {
  const agree =
    configShape.length === engineDims.length &&
    configShape.every((d, i) => (batched && i === 0) || d === -1 || engineDims[i] === -1 || d === engineDims[i]);
  if (!agree) {
    throw new GebeError(
      `config.pbtxt of '${model}' gives ${kind} '${name}' the shape [${configShape.join(',')}]${batched ? ' (with the batch dimension)' : ''}, ` +
        `but the model file has [${engineDims.join(',')}]`,
      {
        hint: batched
          ? 'dims in config.pbtxt leave out the batch dimension when max_batch_size > 0'
          : 'make dims match the model file',
      },
    );
  }
}

export type { NativeMetadata };
