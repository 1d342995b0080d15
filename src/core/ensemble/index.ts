/** Ensembles (platform "ensemble"): plan, load-time checks, the scheduler, and their lifecycle. */
export { EnsembleModel } from './ensemble-model.js';
export { loadEnsemble } from './load.js';
export { ensureComposingLoaded, unloadDependentEnsembles } from './lifecycle.js';
export { composingModelNames, ensemblePlan, isEnsembleConfig, neededSteps, type EnsemblePlan, type EnsembleStep } from './plan.js';
export { ensembleDependencies } from './dependencies.js';
