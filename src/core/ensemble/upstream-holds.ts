/**
 * The backpressure of max_inflight_requests: while a step has requests waiting at its gate
 * (step-gates.ts), the decoupled steps that feed it are held, their models' responses left at
 * their source (LoadedModel.holdResponses: a Python model's process blocks in its response
 * sender once its pipe is full), as Triton blocks an upstream model until the step has room.
 * Without it, a fast decoupled step's responses would pile up in the ensemble while they wait.
 */
import type { LoadedModel } from '../executor/types.js';
import type { ModelLookup } from '../server/model-lookup.js';
import type { EnsemblePlan } from './plan.js';

/** The StepGates' onBackedUp for `plan`: holds a backed-up step's decoupled feeders, and lets them go. */
export function holdFeeders(plan: EnsemblePlan, lookup: ModelLookup): (step: number, backedUp: boolean) => void {
  const feeders = plan.steps.map((step) => [...new Set(step.inputs.map(([, tensor]) => plan.writer.get(tensor)).filter((i): i is number => i !== undefined))]);
  const held = new Map<number, Array<() => void>>();
  const resolve = (step: number): LoadedModel | undefined => {
    const { modelName, modelVersion } = plan.steps[step]!;
    try {
      return lookup.resolve(modelName, modelVersion);
    } catch {
      return undefined; // not loaded now: nothing of it to hold
    }
  };
  return (step, backedUp) => {
    for (const release of held.get(step) ?? []) release();
    held.delete(step);
    if (!backedUp) return;
    const own = resolve(step);
    const releases: Array<() => void> = [];
    for (const feeder of feeders[step]!) {
      const model = resolve(feeder);
      // A model that feeds a step of its own would wait on itself: never held.
      if (!model?.decoupled || !model.holdResponses || model === own) continue;
      releases.push(model.holdResponses());
    }
    if (releases.length > 0) held.set(step, releases);
  };
}
