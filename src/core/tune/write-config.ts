/**
 * `gebe tune --write`: puts the winner's settings into config.pbtxt with config/edits, so every
 * other byte (comments, order, spacing) stays. The instance count is set in place when the
 * config has one instance group; the dynamic_batching block is rewritten (comments inside that
 * block are not kept) or removed when the winner runs without it.
 */
import { applyEdits, parseModelConfig, printFields, replaceTopLevelEdits, setScalarEdit } from '../config/index.js';
import type { TextEdit } from '../diagnostic.js';
import type { Candidate } from './candidate.js';

export function writeCandidate(text: string, file: string, c: Candidate): string {
  const parsed = parseModelConfig(text, file);
  const config = parsed.config;
  const groups = config.instance_group ?? [];
  const edits: TextEdit[] = [];
  if (groups.length === 1 && parsed.locate(['instance_group', 0, 'count'])) {
    edits.push(setScalarEdit(parsed, text, ['instance_group', 0, 'count'], c.instanceCount));
  } else {
    edits.push(...replaceTopLevelEdits(parsed, text, 'instance_group', printFields({ instance_group: [{ ...(groups[0] ?? {}), count: c.instanceCount }] })));
  }
  const db = config.dynamic_batching;
  if (c.batching) {
    const block = { ...(db ?? {}), preferred_batch_size: c.batching.preferredBatchSizes, max_queue_delay_microseconds: c.batching.maxQueueDelayUs };
    if (block.preferred_batch_size.length === 0) delete (block as { preferred_batch_size?: number[] }).preferred_batch_size;
    edits.push(...replaceTopLevelEdits(parsed, text, 'dynamic_batching', printFields({ dynamic_batching: block })));
  } else if (db) {
    edits.push(...replaceTopLevelEdits(parsed, text, 'dynamic_batching', ''));
  }
  return applyEdits(text, edits);
}
