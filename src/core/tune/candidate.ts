/**
 * One point of `gebe tune`'s search: the config fields it varies (instance count, dynamic
 * batching with its preferred sizes and queue delay) and the client concurrency it is measured at.
 */
import type { ModelConfig } from '../config/model-config.js';
import { instanceCountOf } from '../executor/load-options.js';

export interface Candidate {
  instanceCount: number;
  /** undefined: no dynamic_batching block (one execution per request). */
  batching?: { preferredBatchSizes: number[]; maxQueueDelayUs: number };
  concurrency: number;
}

/** A stable key for checkpoints and de-duplication. */
export function candidateKey(c: Candidate): string {
  const b = c.batching ? `db[${c.batching.preferredBatchSizes.join(',')}]@${c.batching.maxQueueDelayUs}us` : 'no-db';
  return `i${c.instanceCount}/${b}/c${c.concurrency}`;
}

export function describeCandidate(c: Candidate): string {
  const b = c.batching
    ? `dynamic batching${c.batching.preferredBatchSizes.length ? ` preferred [${c.batching.preferredBatchSizes.join(', ')}]` : ''}, delay ${c.batching.maxQueueDelayUs} µs`
    : 'no dynamic batching';
  return `${c.instanceCount} instance${c.instanceCount === 1 ? '' : 's'}, ${b}, concurrency ${c.concurrency}`;
}

/** The config's own settings as a candidate (the baseline every search measures first). */
export function candidateFromConfig(config: ModelConfig, concurrency: number): Candidate {
  const db = config.dynamic_batching;
  const batched = Number(config.max_batch_size ?? 0) > 0;
  return {
    instanceCount: instanceCountOf(config),
    ...(db && batched ? { batching: { preferredBatchSizes: (db.preferred_batch_size ?? []).map(Number), maxQueueDelayUs: Number(db.max_queue_delay_microseconds ?? 0) } } : {}),
    concurrency,
  };
}

/** The config with the candidate's settings in place of its own (in memory, for loading). */
export function applyCandidate(config: ModelConfig, c: Candidate): ModelConfig {
  const groups = config.instance_group ?? [];
  const { dynamic_batching: db, ...rest } = config;
  return {
    ...rest,
    instance_group: [{ ...(groups[0] ?? {}), count: c.instanceCount }],
    ...(c.batching ? {
      dynamic_batching: { ...(db ?? {}), preferred_batch_size: c.batching.preferredBatchSizes, max_queue_delay_microseconds: c.batching.maxQueueDelayUs },
    } : {}),
  };
}
