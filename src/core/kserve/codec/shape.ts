/**
 * Shapes as clients send them: validated before anything is allocated, so a huge declared shape
 * costs nothing but an error.
 */
import { formatShape } from '../../executor/format-shape.js';
import { clientText, ProtocolError } from '../protocol-error.js';

/** The largest element count one tensor may declare (bounded again by the body size). */
export const MAX_ELEMENTS = 2 ** 31;

/** Checks a client-sent shape (array of non-negative integers) and returns it as numbers. */
export function parseShape(value: unknown, tensor: string): number[] {
  if (!Array.isArray(value)) {
    throw ProtocolError.badRequest(`shape of input '${tensor}' must be an array of non-negative integers, got ${describe(value)}`);
  }
  const shape: number[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    // JSON integers only: "1", "0x1" and "1e0" are strings, not shapes (Triton refuses them too).
    const d = value[i];
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) {
      throw ProtocolError.badRequest(`shape of input '${clientText(tensor)}' has an invalid dimension ${clientText(JSON.stringify(d) ?? String(d))} at index ${i}; dimensions are non-negative integers`);
    }
    shape[i] = d;
  }
  return shape;
}

/** Element count of a shape, refusing counts no request can carry. */
export function elementCount(shape: readonly number[], tensor: string): number {
  let n = 1;
  for (const d of shape) {
    n *= d;
    if (n > MAX_ELEMENTS) {
      throw ProtocolError.badRequest(`input '${clientText(tensor)}' declares shape ${formatShape(shape)}, more than ${MAX_ELEMENTS} elements`);
    }
  }
  return n;
}

export function describe(value: unknown): string {
  if (value === undefined) return 'none';  // (a field left out: not "undefined undefined")
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${clientText(JSON.stringify(value) ?? String(value))}`;
}
