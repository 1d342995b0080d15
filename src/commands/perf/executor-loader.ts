/** The executor facade's loadModel, for in-process runs (imported late so `gebe perf -u` needs no addon). */
import type { LoadModelFn } from '../../core/perf/in-process-target.js';

export async function executorLoader(): Promise<LoadModelFn> {
  const { loadModel } = await import('../../core/executor/index.js');
  return loadModel;
}
