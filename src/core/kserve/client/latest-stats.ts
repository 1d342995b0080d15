/** The highest version's entry of a statistics answer (HTTP and gRPC read the same shape). */
import type { ModelStatistics } from '../../executor/types.js';

export function latest(stats: ModelStatistics[] | undefined): ModelStatistics | undefined {
  return stats?.reduce<ModelStatistics | undefined>((best, s) => (!best || Number(s.version) > Number(best.version) ? s : best), undefined);
}
