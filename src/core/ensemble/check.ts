/**
 * The load-time checks of an ensemble against the models its steps run, with Triton's wording
 * (ensemble_utils.cc, ValidateEnsembleConfig): max_batch_size of the ensemble vs each step's
 * model, every mapped name an input/output of that model, every required input mapped, and one
 * datatype and a compatible shape for every ensemble tensor wherever it is read or written.
 */
import type { ModelConfig } from '../config/model-config.js';
import type { LoadedModel, TensorMetadata } from '../executor/types.js';
import type { EnsemblePlan } from './plan.js';

/** An ensemble tensor as inferred from one model (Triton's TensorNode). */
interface TensorNode {
  model: string;
  type: string;
  dims: number[];
  /** dims with the batch dimension (-1) prepended when the model batches. */
  fullDims: number[];
}

function node(model: string, batching: boolean, type: string, dims: readonly number[]): TensorNode {
  return { model, type, dims: [...dims], fullDims: batching ? [-1, ...dims] : [...dims] };
}

/** A served tensor's config datatype name (Triton prints DataType_Name: TYPE_FP32, TYPE_STRING). */
function configType(t: TensorMetadata): string {
  return t.datatype === 'BYTES' ? 'TYPE_STRING' : `TYPE_${t.datatype}`;
}

/** A served tensor's dims without the batch dimension. */
function dimsOf(model: LoadedModel, t: TensorMetadata): number[] {
  return model.maxBatchSize > 0 ? t.shape.slice(1) : [...t.shape];
}

export function dimsCompatible(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === -1 || b[i] === -1 || d === b[i]);
}

const dimsText = (d: readonly number[]): string => `[${d.join(',')}]`;

function consistent(lhs: TensorNode, rhs: TensorNode, prefix: string): void {
  if (lhs.type !== rhs.type) {
    throw new Error(`${prefix}inconsistent data type: ${lhs.type} is inferred from model ${lhs.model} while ${rhs.type} is inferred from model ${rhs.model}`);
  }
  if (!dimsCompatible(lhs.dims, rhs.dims) && !dimsCompatible(lhs.fullDims, rhs.fullDims)) {
    throw new Error(`${prefix}inconsistent shape: ${dimsText(lhs.fullDims)} is inferred from model ${lhs.model} while ${dimsText(rhs.fullDims)} is inferred from model ${rhs.model}`);
  }
}

/**
 * Throws an Error in Triton's words at the first problem. `models[i]` is the model step i runs,
 * resolved at load (the composing model's served metadata stands for its completed config).
 */
export function checkEnsemble(config: ModelConfig, plan: EnsemblePlan, models: readonly LoadedModel[]): void {
  const ensemble = plan.name;
  const batching = Number(config.max_batch_size ?? 0) > 0;
  const tensors = new Map<string, TensorNode>();
  for (const t of config.input ?? []) tensors.set(t.name, node(ensemble, batching, t.data_type, t.reshape?.shape ?? t.dims ?? []));
  for (const t of config.output ?? []) {
    const n = node(ensemble, batching, t.data_type, t.reshape?.shape ?? t.dims ?? []);
    if (!tensors.has(t.name)) tensors.set(t.name, n);
  }
  const merge = (name: string, n: TensorNode): void => {
    const known = tensors.get(name);
    if (known) consistent(known, n, `in ensemble ${ensemble}, ensemble tensor ${name}: `);
    else tensors.set(name, n);
  };
  for (const step of plan.steps) {
    const model = models[step.index]!;
    const stepModel = step.modelName;
    const maxBatch = Number(config.max_batch_size ?? 0);
    if (model.maxBatchSize !== 0 && model.maxBatchSize < maxBatch) {
      throw new Error(`ensemble ${ensemble} allows maximum batch size ${maxBatch}, but it contains model ${stepModel} which only allows maximum batch size to be ${model.maxBatchSize}`);
    }
    const stepBatching = model.maxBatchSize > 0;
    for (const [input, tensor] of step.inputs) {
      if (!model.inputs.some((t) => t.name === input)) {
        throw new Error(`in ensemble ${ensemble}, ensemble tensor ${tensor} is mapping to non-existing input ${input} in model ${stepModel}`);
      }
    }
    const optional = model.optionalInputs ?? new Set<string>();
    for (const t of model.inputs) {
      const mapped = step.inputs.find(([input]) => input === t.name);
      if (!mapped) {
        if (optional.has(t.name)) continue;
        throw new Error(`in ensemble ${ensemble}, input ${t.name} in model ${stepModel} is not mapped to any ensemble tensors`);
      }
      merge(mapped[1], node(stepModel, stepBatching, configType(t), dimsOf(model, t)));
    }
    for (const [output, tensor] of step.outputs) {
      const t = model.outputs.find((o) => o.name === output);
      if (!t) throw new Error(`in ensemble ${ensemble}, ensemble tensor ${tensor} is mapped from non-existing output ${output} in model ${stepModel}`);
      merge(tensor, node(stepModel, stepBatching, configType(t), dimsOf(model, t)));
    }
  }
}
