/**
 * An ensemble's steps as a data-flow graph, read from `ensemble_scheduling.step[]`: which model
 * each step runs, which ensemble tensors it reads (input_map: model input → ensemble tensor) and
 * writes (output_map: model output → ensemble tensor), and which steps a request that asks for
 * only some outputs needs (Triton prunes the others). Pure: no models, no I/O.
 */
import type { ModelConfig } from '../config/model-config.js';
import { latestVersion } from '../server/model-lookup.js';

export interface EnsembleStep {
  /** Position in ensemble_scheduling.step (Triton's step index). */
  index: number;
  modelName: string;
  /** The version to run; undefined for model_version -1 (the highest READY version). */
  modelVersion?: string;
  /** [model input, ensemble tensor] pairs. */
  inputs: Array<[string, string]>;
  /** [model output, ensemble tensor] pairs. */
  outputs: Array<[string, string]>;
}

export interface EnsemblePlan {
  name: string;
  steps: EnsembleStep[];
  /** Ensemble tensor → the steps that read it. */
  readers: Map<string, number[]>;
  /** Ensemble tensor → the step that writes it (ensemble inputs have none). */
  writer: Map<string, number>;
  /** ensemble_scheduling.max_inflight_requests: requests in flight at each step at most (0: no limit). */
  maxInflightRequests: number;
}

interface StepConfig {
  model_name?: string;
  model_version?: number | string;
  input_map?: Record<string, string>;
  output_map?: Record<string, string>;
}

export function isEnsembleConfig(config: ModelConfig): boolean {
  return config.platform === 'ensemble' || config.ensemble_scheduling !== undefined;
}

export function stepConfigs(config: ModelConfig): StepConfig[] {
  const steps = (config.ensemble_scheduling as { step?: StepConfig[] } | undefined)?.step;
  return Array.isArray(steps) ? steps : [];
}

/** The models an ensemble's steps run, each once, in step order. */
export function composingModelNames(config: ModelConfig): string[] {
  return [...new Set(stepConfigs(config).map((s) => s.model_name ?? ''))];
}

export function ensemblePlan(config: ModelConfig): EnsemblePlan {
  const name = config.name ?? '';
  const steps = stepConfigs(config).map((s, index): EnsembleStep => ({
    index,
    modelName: s.model_name ?? '',
    modelVersion: latestVersion(s.model_version),
    inputs: Object.entries(s.input_map ?? {}),
    outputs: Object.entries(s.output_map ?? {}),
  }));
  const readers = new Map<string, number[]>();
  const writer = new Map<string, number>();
  for (const step of steps) {
    for (const [, tensor] of step.inputs) readers.set(tensor, [...(readers.get(tensor) ?? []), step.index]);
    for (const [, tensor] of step.outputs) writer.set(tensor, step.index);
  }
  const limit = Number((config.ensemble_scheduling as { max_inflight_requests?: unknown } | undefined)?.max_inflight_requests ?? 0);
  return { name, steps, readers, writer, maxInflightRequests: Number.isFinite(limit) && limit > 0 ? limit : 0 };
}

/**
 * The steps needed to produce `outputs`: walking back from each wanted tensor to its writer and
 * that step's inputs. Steps that feed only unrequested outputs are not run, as in Triton.
 */
export function neededSteps(plan: EnsemblePlan, outputs: readonly string[]): Set<number> {
  const needed = new Set<number>();
  const pending = [...outputs];
  while (pending.length > 0) {
    const step = plan.writer.get(pending.pop()!);
    if (step === undefined || needed.has(step)) continue;
    needed.add(step);
    for (const [, tensor] of plan.steps[step]!.inputs) pending.push(tensor);
  }
  return needed;
}
