/**
 * Parameters model.py sends as JSON text: a BLS request's and a response's. Triton's kind, an object
 * of string, number and boolean values, and as small as a client's request parameters must be for
 * a Python model.
 */
import type { InferRequest } from '../executor/types.js';

export type ParameterMap = NonNullable<InferRequest['parameters']>;

/**
 * The most a request's or response's parameters may take as JSON: they travel in control messages,
 * which stay small whatever a client sends (sampling settings are bytes).
 */
export const MAX_PARAMETER_BYTES = 64 << 10;

/** `text` (JSON from model.py) as parameters, undefined when empty; what it is not, in an Error naming `what`. */
export function parseParameters(text: unknown, what: string): ParameterMap | undefined {
  if (typeof text !== 'string') throw new Error(`${what} are not a JSON string`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_PARAMETER_BYTES) throw new Error(`${what} take ${bytes} bytes as JSON, more than the ${MAX_PARAMETER_BYTES} they may take`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${what} are not valid JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${what} are not a JSON object`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      // In model.py's words: it sent a dict, a list or None.
      const kind = value === null ? 'None' : Array.isArray(value) ? 'a list' : 'a dict';
      throw new Error(`${what.replace(/s$/, '')} '${key.slice(0, 200)}' is ${kind}; parameters are strings, integers or booleans`);
    }
  }
  return entries.length > 0 ? (parsed as ParameterMap) : undefined;
}
