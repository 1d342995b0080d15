/**
 * The executor facade's loadModel (and the Python backend for backend "python"), for in-process
 * runs (imported late so `gebe perf -u` needs no addon). A Python model's output goes nowhere here:
 * perf and tune own the terminal; BLS requests fail (there is no server to send them to).
 */
import type { LoadModelFn } from '../../core/perf/in-process-target.js';
import { silentLogger } from '../../core/server/logger.js';

export async function executorLoader(): Promise<LoadModelFn> {
  const { loadModel } = await import('../../core/executor/index.js');
  const { withPythonModels } = await import('../../core/python-backend/index.js');
  const { completeConfigOnDisk } = await import('../../core/server/auto-complete.js');
  return withPythonModels(loadModel, { log: silentLogger, completeConfig: completeConfigOnDisk });
}
