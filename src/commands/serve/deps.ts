/** The real dependencies of `gebe serve`: the native executor and the repository on disk. */
import type { IO } from '../../io.js';
import { DiskModelSource } from '../../core/server/disk-source.js';
import type { ServeDeps } from './run.js';

export async function defaultServeDeps(io: IO): Promise<Omit<ServeDeps, 'waitForStop'>> {
  // Imported here so that `gebe serve --help` works without the native addon.
  const { loadModel } = await import('../../core/executor/index.js');
  return { io, loadModel, createSource: (repository, limits, configName) => new DiskModelSource(repository, limits, configName) };
}
