/** The executor facade's loadModel, for in-process runs. */
import { GebeError } from '../../errors.js';
import type { LoadModelFn } from '../../core/perf/in-process-target.js';

export async function executorLoader(): Promise<LoadModelFn> {
  // TODO(merge): a static import once the executor facade (src/core/executor/index.ts) is on main.
  const specifier = '../../core/executor/index.js';
  const mod = (await import(specifier).catch(() => ({}))) as { loadModel?: LoadModelFn };
  if (!mod.loadModel) {
    throw new GebeError('in-process mode needs the executor facade, which this build does not have yet; measure a running server with -u host:port instead');
  }
  return mod.loadModel;
}
