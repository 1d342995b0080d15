/**
 * Several model repositories served as one, as tritonserver serves every --model-repository it is
 * given: the models of all of them, each read from the repository that holds it. A model name in
 * more than one repository is refused at its load, naming them, as Triton refuses to guess which
 * one is meant.
 */
import type { ModelConfig } from '../config/model-config.js';
import type { ConfigOrigin } from './config-json.js';
import type { ModelSource, RepositoryModel } from './model-source.js';

export class RepositoriesSource implements ModelSource {
  /** `sources[i]` reads the repository `names[i]` (its path, for messages). */
  constructor(private readonly sources: ModelSource[], private readonly names: string[]) {}

  async list(): Promise<string[]> {
    const lists = await Promise.all(this.sources.map((s) => s.list()));
    return [...new Set(lists.flat())].sort();
  }

  async read(name: string, configOverride?: ModelConfig, origin?: ConfigOrigin): Promise<RepositoryModel | undefined> {
    // Each repository reads only a model directory it has (the others answer at once).
    const read = await Promise.all(this.sources.map((s) => s.read(name, configOverride, origin)));
    const holders = read.flatMap((model, i) => (model ? [i] : []));
    if (holders.length === 0) return undefined;
    const model = read[holders[0]!]!;
    if (holders.length === 1) return model;
    const where = holders.map((i) => this.names[i]).join(', ');
    return { ...model, errors: [`model '${name}' is in more than one model repository (${where}); rename or remove all but one`, ...model.errors] };
  }
}
