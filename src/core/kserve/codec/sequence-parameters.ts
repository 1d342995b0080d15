/**
 * The request parameters of Triton's sequence batcher, read once for HTTP (the JSON header's
 * `parameters`) and gRPC (ModelInferRequest.parameters): `sequence_id` (an unsigned 64-bit
 * number, or a string), `sequence_start` and `sequence_end` (booleans). Models without
 * sequence_batching ignore them, as Triton does.
 */
import type { InferRequest } from '../../executor/types.js';
import { ProtocolError } from '../protocol-error.js';

const MAX_UINT64 = (1n << 64n) - 1n;
/** Longer string ids are refused (they are map keys and travel in CORRID tensors). */
export const MAX_SEQUENCE_ID_LENGTH = 1024;

/** `value` is what the codec decoded: a number, a bigint (gRPC uint64/int64), a string, a boolean. */
export function applySequenceParameter(key: string, value: unknown, request: InferRequest): void {
  switch (key) {
    case 'sequence_id':
      request.sequenceId = sequenceId(value);
      return;
    case 'sequence_start':
    case 'sequence_end':
      if (typeof value !== 'boolean') throw ProtocolError.badRequest(`request parameter '${key}' must be a boolean, got ${JSON.stringify(value)}`);
      if (key === 'sequence_start') request.sequenceStart = value;
      else request.sequenceEnd = value;
      return;
    default:
  }
}

export const SEQUENCE_PARAMETERS: ReadonlySet<string> = new Set(['sequence_id', 'sequence_start', 'sequence_end']);

function sequenceId(value: unknown): number | bigint | string {
  if (typeof value === 'string') {
    if (value.length > MAX_SEQUENCE_ID_LENGTH) {
      throw ProtocolError.badRequest(`request parameter 'sequence_id' is a string of ${value.length} characters, over the limit of ${MAX_SEQUENCE_ID_LENGTH}`);
    }
    return value;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'bigint' && value >= 0n && value <= MAX_UINT64) return value;
  throw ProtocolError.badRequest(
    `request parameter 'sequence_id' must be an unsigned 64-bit integer or a string, got ${typeof value === 'bigint' ? value.toString() : JSON.stringify(value)}` +
      (typeof value === 'number' && Number.isInteger(value) && value > 0 ? ' (ids above 2^53 cannot be taken exactly: use smaller ids or string ids)' : ''),
  );
}
