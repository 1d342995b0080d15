/** The sequence batcher's bounds in limits.ts: candidate slots per instance, state count and bytes. */
import { describe, expect, it } from 'vitest';
import { configLimitFindings, DEFAULT_CONFIG_LIMITS } from '../../../src/core/config/limits.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';

const seq = (sequence_batching: object): ModelConfig => ({ name: 'm', max_batch_size: 4, sequence_batching });

describe('sequence limits', () => {
  it('bounds max_candidate_sequences', () => {
    expect(configLimitFindings(seq({ oldest: { max_candidate_sequences: 5000 } }))).toEqual([{
      at: ['sequence_batching', 'oldest', 'max_candidate_sequences'],
      message: `sequence_batching.oldest.max_candidate_sequences is 5000, over the limit of ${DEFAULT_CONFIG_LIMITS.sequenceSlots} sequence slots per instance`,
    }]);
  });

  it("bounds one sequence's state bytes, by data type", () => {
    const state = (dims: number[], data_type: string) => seq({ state: [{ input_name: 'S', output_name: 'T', data_type, dims }] });
    expect(configLimitFindings(state([1024, 1024], 'TYPE_FP32'))).toEqual([]);
    expect(configLimitFindings(state([4097, 1024], 'TYPE_FP32'))).toEqual([{
      at: ['sequence_batching', 'state', 0, 'dims'],
      message: `the size of state 'S' (bytes per sequence) is ${4097 * 1024 * 4}, over the limit of ${DEFAULT_CONFIG_LIMITS.stateBytes} bytes`,
    }]);
  });

  it('bounds the number of states', () => {
    const states = Array.from({ length: 65 }, (_, i) => ({ input_name: `S${i}`, output_name: `T${i}`, data_type: 'TYPE_FP32', dims: [1] }));
    expect(configLimitFindings(seq({ state: states })).map((f) => f.message)).toEqual(['the number of sequence_batching.state entries is 65, over the limit of 64']);
  });
});

describe('rate limiter limits', () => {
  it("bounds the resources of an instance group's rate_limiter", () => {
    const resources = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `R${i}`, count: 1 }));
    const config = (n: number): ModelConfig => ({ name: 'm', max_batch_size: 4, instance_group: [{ count: 1 }, { count: 1, rate_limiter: { resources: resources(n) } }] } as ModelConfig);
    expect(configLimitFindings(config(64))).toEqual([]);
    expect(configLimitFindings(config(65))).toEqual([{
      at: ['instance_group', 1, 'rate_limiter', 'resources'],
      message: `the number of instance_group[1].rate_limiter resources is 65, over the limit of ${DEFAULT_CONFIG_LIMITS.rateLimiterResources}`,
    }]);
  });
});
