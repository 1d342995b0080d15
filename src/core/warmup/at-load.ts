/**
 * model_warmup at load, as Triton runs it: after a version loads and before it is READY, each
 * warmup sample runs `count` times (at least once); a sample that fails fails the load, naming the
 * sample. The samples are built by the same plan as `gebe warmup`'s (plan.ts). They go through the
 * model's own scheduler, so the model's statistics count them as Triton's do (its warmup requests
 * report statistics like any other); a decoupled model's run reads its responses to the final
 * flag. Without model_warmup entries nothing runs: the default
 * warmups are `gebe warmup`'s own, not Triton's.
 */
import type { ModelConfig } from '../config/model-config.js';
import type { InferTensor, LoadedModel } from '../executor/types.js';
import { runToFinal } from '../executor/decoupled.js';
import type { Logger } from '../server/logger.js';
import { planWarmup } from './plan.js';

export async function warmupAtLoad(model: LoadedModel, config: ModelConfig, modelDir: string, log: Logger): Promise<void> {
  if ((config.model_warmup ?? []).length === 0) return;
  const configFile = `${model.name}/config.pbtxt`;
  const plan = planWarmup(config, model, model.gears, modelDir, configFile);
  for (const step of plan.steps) {
    log.info('running warmup sample', { model: model.name, version: model.version, sample: step.name, batch_size: step.batchSize, count: step.count });
    for (let i = 0; i < step.count; i++) {
      try {
        await runSample(model, step.inputs);
      } catch (err) {
        throw new Error(`warmup sample '${step.name}' (${configFile}) failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

/** One run of a sample; a decoupled model's responses are read to its final flag, any error failing it. */
async function runSample(model: LoadedModel, inputs: InferTensor[]): Promise<void> {
  if (model.decoupled && model.inferDecoupled) await runToFinal((on) => model.inferDecoupled!({ inputs }, on));
  else await model.infer({ inputs });
}
