/**
 * What loading and unloading mean for ensembles, as in Triton's model repository manager: loading
 * an ensemble first loads the composing models that are not READY (in any control mode, so an
 * explicit `load` of an ensemble brings its steps), and unloading a composing model makes every
 * READY ensemble that runs it unavailable (the model manager loads it again once the model is
 * back). The model manager calls these two; they hold no state.
 */
import type { ModelConfig } from '../config/model-config.js';
import type { Logger } from '../server/logger.js';
import type { ModelSource } from '../server/model-source.js';
import { ensembleDependencies } from './dependencies.js';
import { composingModelNames } from './plan.js';

export async function ensureComposingLoaded(
  name: string, config: ModelConfig, source: ModelSource, isReady: (model: string) => boolean, load: (model: string) => Promise<void>,
): Promise<void> {
  const order = await ensembleDependencies(name, config, async (model) => {
    const found = await source.read(model);
    return found ? (found.config ?? {}) : undefined;
  });
  for (const model of order) {
    if (isReady(model)) continue;
    try {
      await load(model);
    } catch (err) {
      throw new Error(`ensemble '${name}' depends on '${model}' which has no loaded version. Model '${model}' loading failed with error: ${(err as Error).message}`);
    }
  }
}

/** Unloads (with Triton's reason) the READY ensembles among `ensembles` whose steps run `model`. */
export async function unloadDependentEnsembles(
  model: string, ensembles: ReadonlyMap<string, ModelConfig>, unload: (ensemble: string, reason: string) => Promise<void>, log: Logger,
): Promise<void> {
  for (const [ensemble, config] of ensembles) {
    if (ensemble === model || !composingModelNames(config).includes(model)) continue;
    // The composing model left the dependency graph: Triton's wording for an ensemble whose step is gone.
    const reason = `ensemble ${ensemble} contains models that are not available or ambiguous: ${model}`;
    log.warn('a composing model was unloaded: its ensemble is unavailable', { model: ensemble, composing: model });
    await unload(ensemble, reason).catch(() => undefined);
  }
}
