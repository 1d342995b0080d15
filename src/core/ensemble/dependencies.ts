/**
 * The models an ensemble needs, found before anything loads: every composing model must be in the
 * repository, and no ensemble may reach itself through its steps. Wording as Triton's model
 * repository manager: "ensemble E contains models that are not available or ambiguous: X" and
 * "circular dependency between ensembles: A -> ... -> B -> A".
 */
import type { ModelConfig } from '../config/model-config.js';
import { composingModelNames, isEnsembleConfig } from './plan.js';

/** Reads a model's config by name; undefined when the repository has no such model. */
export type ConfigReader = (name: string) => Promise<ModelConfig | undefined>;

/** Bounds the walk (a repository of nested ensembles deeper than this is refused as a cycle would be). */
export const MAX_ENSEMBLE_DEPTH = 64;

/**
 * The composing models of `name` (its own config given), nested ensembles' composing models
 * included, in the order they must load (dependencies first). Throws an Error in Triton's words.
 */
export async function ensembleDependencies(name: string, config: ModelConfig, read: ConfigReader): Promise<string[]> {
  const order: string[] = [];
  const visit = async (current: string, cfg: ModelConfig, chain: string[]): Promise<void> => {
    if (chain.length > MAX_ENSEMBLE_DEPTH) throw new Error(`ensemble ${name} nests ensembles deeper than ${MAX_ENSEMBLE_DEPTH} levels (${chain.slice(0, 4).join(' -> ')} -> ...)`);
    const steps = composingModelNames(cfg);
    const configs = await Promise.all(steps.map((s) => read(s)));
    const missing = steps.filter((_, i) => configs[i] === undefined);
    if (missing.length > 0) throw new Error(`ensemble ${current} contains models that are not available or ambiguous: ${missing.join(', ')}`);
    for (const [i, step] of steps.entries()) {
      const stepConfig = configs[i]!;
      if (chain.includes(step)) throw new Error(`circular dependency between ensembles: ${step} -> ... -> ${current} -> ${step}`);
      if (isEnsembleConfig(stepConfig)) await visit(step, stepConfig, [...chain, step]);
      if (!order.includes(step)) order.push(step);
    }
  };
  await visit(name, config, [name]);
  return order;
}
