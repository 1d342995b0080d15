/**
 * Loads one version of an ensemble once its composing models are READY (the model manager loads
 * them first): finds each step's model through the ModelLookup, runs Triton's load-time checks
 * against them, and returns the EnsembleModel.
 */
import { isDecoupled, type ModelConfig } from '../config/model-config.js';
import type { LoadedModel } from '../executor/types.js';
import type { ModelLookup } from '../server/model-lookup.js';
import { checkEnsemble } from './check.js';
import { EnsembleModel } from './ensemble-model.js';
import { ensemblePlan } from './plan.js';

export async function loadEnsemble(config: ModelConfig, version: string, lookup: ModelLookup): Promise<LoadedModel> {
  const plan = ensemblePlan(config);
  const models = plan.steps.map((step) => {
    try {
      return lookup.resolve(step.modelName, step.modelVersion);
    } catch {
      const which = step.modelVersion ? `' whose required version ${step.modelVersion} is not loaded.` : `' which has no loaded version.`;
      throw new Error(`ensemble '${plan.name}' depends on '${step.modelName}${which}`);
    }
  });
  checkEnsemble(config, plan, models);
  // A decoupled step makes the ensemble decoupled (Triton): its requests answer through inferDecoupled.
  return new EnsembleModel(config, version, plan, lookup, isDecoupled(config) || models.some((m) => m.decoupled === true));
}
