import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/index.js';
import { writeCandidate } from '../../../src/core/tune/write-config.js';

const TEXT = `# header comment
name: "m"
max_batch_size: 8  # eight
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 500
  preserve_ordering: true
}
# instances
instance_group [ { count: 2 kind: KIND_CPU } ]
`;

describe('writeCandidate', () => {
  it('sets the instance count in place and rewrites dynamic_batching, keeping comments and other fields', () => {
    const out = writeCandidate(TEXT, 'config.pbtxt', { instanceCount: 3, batching: { preferredBatchSizes: [8], maxQueueDelayUs: 100 }, concurrency: 4 });
    expect(out).toContain('# header comment\nname: "m"\nmax_batch_size: 8  # eight\n');
    expect(out).toContain('# instances\ninstance_group [ { count: 3 kind: KIND_CPU } ]\n');
    const parsed = parseModelConfig(out, 'config.pbtxt');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.config.dynamic_batching).toEqual({ preferred_batch_size: [8], max_queue_delay_microseconds: 100, preserve_ordering: true });
  });

  it('removes dynamic_batching when the winner runs without it, and adds instance_group when absent', () => {
    const out = writeCandidate('name: "m"\nmax_batch_size: 8\ndynamic_batching { }\n', 'c', { instanceCount: 2, concurrency: 1 });
    const parsed = parseModelConfig(out, 'c');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.config.dynamic_batching).toBeUndefined();
    expect(parsed.config.instance_group).toEqual([{ count: 2 }]);
  });
});
