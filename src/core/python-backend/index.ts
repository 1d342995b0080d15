/**
 * Loads a Python-backend model version (backend "python": `<version>/model.py`, or the config's
 * default_model_filename) as a LoadedModel that serve programs against like any other: the
 * interpreter, the refusals serve makes for features the stub does not offer, Triton's initialize()
 * arguments and the instance names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { isDecoupled, type ModelConfig } from '../config/model-config.js';
import { datatypeFromConfig } from '../kserve/datatypes.js';
import type { Datatype, LoadedModel, TensorMetadata } from '../executor/types.js';
import { outsideMessage, resolveInside } from '../repository/inside.js';
import type { Logger } from '../server/logger.js';
import type { ModelControl } from '../server/model-control.js';
import type { ModelLookup } from '../server/model-lookup.js';
import { runBls } from './bls.js';
import { runModelControl } from './model-control.js';
import { findInterpreter } from './interpreter.js';
import { sequenceBatching } from '../executor/sequence-options.js';
import { PythonModel } from './python-model.js';
import { pythonSequenceRefusal } from './sequences.js';
import { StubProcess } from './stub-process.js';
import { instanceRateLimits, type RateLimiter } from '../executor/rate-limiter.js';

export { PythonModel } from './python-model.js';

/** The most shared memory one execute() of an instance may use: inputs, outputs and BLS tensors. */
export const PYTHON_SHM_CAP_BYTES = 1 << 30;
/** How long unload waits for running requests and finalize() before it kills an instance's process. */
export const PYTHON_UNLOAD_GRACE_MS = 10_000;

export interface PythonLoadContext {
  log: Logger;
  /** The config as model.py's auto_complete_config() completes it, checked (server/auto-complete); as it is without. */
  completeConfig?(modelDir: string, version: string, config: ModelConfig, log: Logger): Promise<ModelConfig>;
  /** The server's models, for BLS requests; without it BLS requests fail. */
  lookup?: ModelLookup;
  /** The server's model control, for pb_utils.load_model and the others; without it they fail. */
  control?: ModelControl;
  shmCapBytes?: number;
  unloadGraceMs?: number;
  /** The server's rate limiter (--rate-limit execution_count): each instance takes its rate_limiter resources there for every execute(). */
  rateLimiter?: RateLimiter;
}

export function isPythonModel(config: ModelConfig): boolean {
  return config.backend === 'python';
}

type Loader = (modelDir: string, version: string, config: ModelConfig) => Promise<LoadedModel>;

/** `load` for model files, and the Python backend for backend "python" (in-process perf, tune, infer). */
export function withPythonModels(load: Loader, context: PythonLoadContext): Loader {
  return async (dir, version, config) => {
    if (!isPythonModel(config)) return load(dir, version, config);
    const completed = context.completeConfig ? await context.completeConfig(dir, version, config, context.log) : config;
    return loadPythonModel(dir, version, completed, context);
  };
}

/** A version's model.py (or default_model_filename), its interpreter, and Triton's initialize() arguments. */
async function modelFiles(modelDir: string, version: string, config: ModelConfig) {
  const dir = path.resolve(modelDir);
  const name = config.name ?? path.basename(dir);
  const fileName = config.default_model_filename || 'model.py';
  const found = resolveInside(dir, path.join(dir, version), fileName);
  if (!found.ok) {
    throw new GebeError(found.reason === 'outside' ? `model '${name}': ${outsideMessage('default_model_filename', fileName)}` : `model '${name}' version ${version} has no ${fileName} (expected ${path.join(dir, version, fileName)})`, {
      hint: 'a Python-backend model keeps its code in <model>/<version>/model.py, a class TritonPythonModel with execute(self, requests)',
    });
  }
  const args = (instance: string, kind: string): Record<string, string> => ({
    model_config: JSON.stringify(config),
    model_instance_kind: kind,
    model_instance_name: instance,
    model_instance_device_id: '0',
    model_repository: dir,
    model_version: version,
    model_name: name,
  });
  return { dir, name, modelFile: found.path, interpreter: await findInterpreter(dir, config), args };
}

/**
 * Triton's auto-complete of a Python model's config: model.py's
 * `TritonPythonModel.auto_complete_config(config)` may add inputs and outputs, set max_batch_size,
 * dynamic batching or decoupled, and the model is served with the config it returns (JSON from
 * model.py, for the caller to check as it checks a config). It runs once per load, in a process of
 * its own, on the newest version's model.py; only when model.py names auto_complete_config or the
 * config leaves its inputs or outputs to it (an inherited one fills those), so a model that needs
 * none costs no extra interpreter start. Undefined when it did not run.
 */
export async function autoCompletePythonConfig(modelDir: string, version: string, config: ModelConfig, log: Logger): Promise<unknown> {
  const files = await modelFiles(modelDir, version, config);
  const incomplete = !config.input?.length || !config.output?.length;
  if (!incomplete && !readFileSync(files.modelFile, 'utf8').includes('auto_complete_config')) return undefined;
  return StubProcess.autoComplete({
    interpreter: files.interpreter, modelName: files.name, instanceName: `${files.name}_auto_complete`, modelFile: files.modelFile,
    args: files.args('', 'CPU'), shmCap: 1 << 20, log,
    bls: (message, arena, send) => runBls(message, arena, undefined, files.name, send),
    modelControl: (message, send) => runModelControl(message, undefined, files.name, send),
  });
}

export async function loadPythonModel(modelDir: string, version: string, config: ModelConfig, context: PythonLoadContext): Promise<PythonModel> {
  const { dir, name, modelFile, interpreter, args } = await modelFiles(modelDir, version, config);
  const sequence = pythonSequences(name, dir, config);
  const batched = Number(config.max_batch_size ?? 0) > 0;
  const inputs = describe(name, 'input', config.input ?? [], batched);
  const outputs = describe(name, 'output', config.output ?? [], batched);
  const instances = instanceNames(name, config);
  const shmCap = context.shmCapBytes ?? PYTHON_SHM_CAP_BYTES;
  return PythonModel.load(
    {
      name, version, maxBatchSize: Number(config.max_batch_size ?? 0), inputs, outputs,
      optionalInputs: new Set((config.input ?? []).filter((t) => t.optional).map((t) => t.name)),
      dynamicBatching: config.dynamic_batching !== undefined,
      decoupled: isDecoupled(config),
      sequence,
      unloadGraceMs: context.unloadGraceMs ?? PYTHON_UNLOAD_GRACE_MS,
      log: context.log,
      ...(context.rateLimiter ? { rateLimit: { limiter: context.rateLimiter, needs: instanceRateLimits(config, instances.length) } } : {}),
    },
    instances.map((i) => i.name),
    (instance) => ({
      interpreter, modelName: name, instanceName: instance, modelFile, shmCap, log: context.log,
      args: args(instance, instances.find((i) => i.name === instance)!.kind),
      bls: (message, arena, send) => runBls(message, arena, context.lookup, name, send),
      modelControl: (message, send) => runModelControl(message, context.control, name, send),
    }),
  );
}

/** sequence_batching of a Python model: its sequences' idle timeout (model.py keeps their state), and whether they are iterative. */
function pythonSequences(model: string, dir: string, config: ModelConfig): { idleMs: number; iterative: boolean } | undefined {
  const refused = pythonSequenceRefusal(config);
  if (refused) throw new GebeError(`model '${model}': ${refused.message}`, { hint: refused.hint });
  const seq = sequenceBatching(model, dir, config, 'allowed');
  return seq && { idleMs: seq.sequence.maxIdleUs / 1000, iterative: seq.iterative };
}

function describe(model: string, kind: 'input' | 'output', tensors: NonNullable<ModelConfig['input']>, batched: boolean): TensorMetadata[] {
  return tensors.map((t) => {
    const datatype = datatypeFromConfig(String(t.data_type)) as Datatype | undefined;
    if (!datatype || datatype === 'BF16') {
      throw new GebeError(`model '${model}': ${kind} '${t.name}' is ${String(t.data_type)}, which gebe's Python backend does not pass to numpy`, {
        hint: datatype === 'BF16' ? 'numpy has no bfloat16: declare the tensor TYPE_FP32 (or TYPE_FP16) and convert in model.py' : 'give the tensor a Triton data_type',
      });
    }
    const dims = t.dims.map(Number);
    return { name: t.name, datatype, shape: batched ? [-1, ...dims] : dims };
  });
}

/** Triton's instance names: `<group name>_<k>`, a group named `<model>_<group index>` by default. */
function instanceNames(model: string, config: ModelConfig): Array<{ name: string; kind: string }> {
  const groups = config.instance_group?.length ? config.instance_group : [{}];
  return groups.flatMap((g, gi) => {
    const group = g as { name?: string; count?: number; kind?: string };
    const groupName = group.name || `${model}_${gi}`;
    const kind = group.kind === 'KIND_GPU' ? 'GPU' : group.kind === 'KIND_MODEL' ? 'MODEL' : 'CPU';
    return Array.from({ length: Math.max(1, Number(group.count ?? 1)) }, (_, k) => ({ name: `${groupName}_${k}`, kind }));
  });
}
