/**
 * Version directories and version policy, as Triton reads them: integer names without leading
 * zeros; `warmup`, `initial_state` and `configs` are model folders, not versions.
 */
import type { ModelConfig } from '../config/model-config.js';
import type { VersionDir } from './types.js';

export const NON_VERSION_DIRS = new Set(['warmup', 'initial_state', 'configs']);

export function isVersionName(name: string): boolean {
  return /^(0|[1-9][0-9]{0,17})$/.test(name);
}

export type PolicyKind = 'latest' | 'all' | 'specific';

export interface PolicySelection {
  kind: PolicyKind;
  /** The versions the policy asks for that exist, ascending. */
  selected: VersionDir[];
  /** Versions a `specific` policy names that have no directory. */
  missing: number[];
}

/** Applies the config's version policy (default: latest 1) to the version directories found. */
export function selectVersions(config: ModelConfig | undefined, versions: VersionDir[]): PolicySelection {
  const policy = config?.version_policy;
  if (policy?.all !== undefined) return { kind: 'all', selected: versions, missing: [] };
  if (policy?.specific !== undefined) {
    const wanted = (policy.specific.versions ?? []).map(Number);
    const have = new Map(versions.map((v) => [v.version, v]));
    return {
      kind: 'specific',
      selected: wanted.filter((w) => have.has(w)).map((w) => have.get(w)!).sort((a, b) => a.version - b.version),
      missing: wanted.filter((w) => !have.has(w)),
    };
  }
  const n = Number(policy?.latest?.num_versions ?? 1);
  return { kind: 'latest', selected: n > 0 ? versions.slice(-n) : [], missing: [] };
}
