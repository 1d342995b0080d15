/** A ModelSource over configs held in memory, for protocol tests that use JsModel. */
import type { ModelConfig } from '../../../../src/core/config/model-config.js';
import type { ModelSource, RepositoryModel } from '../../../../src/core/server/model-source.js';

export class MemorySource implements ModelSource {
  readonly models = new Map<string, { config: ModelConfig; versions: string[]; errors?: string[]; fingerprint?: string }>();

  async list(): Promise<string[]> {
    return [...this.models.keys()].sort();
  }

  async read(name: string, configOverride?: ModelConfig): Promise<RepositoryModel | undefined> {
    const m = this.models.get(name);
    if (!m) return undefined;
    return {
      name,
      dir: `/memory/${name}`,
      config: configOverride ?? m.config,
      versions: m.versions,
      errors: m.errors ?? [],
      fingerprint: m.fingerprint ?? '1',
    };
  }
}
