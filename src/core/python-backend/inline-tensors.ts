/**
 * Tensors carried inside control messages (base64) rather than the shared arena: a decoupled
 * model's responses (which may come after execute() returned, when the arena holds the next
 * call's inputs) and a decoupled BLS request's responses (which keep coming while model.py writes
 * other requests into the arena). One encoding for both directions (the stub's _inline and
 * _from_inline).
 */
import type { InferTensor } from '../executor/types.js';

export interface InlineTensor {
  name: string;
  datatype: string;
  shape: number[];
  data: string;
}

export function toInline(t: InferTensor): InlineTensor {
  return { name: t.name, datatype: t.datatype, shape: t.shape, data: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64') };
}

/** A tensor's bytes as a message carries them (base64). */
export function inlineBytes(data: string): Uint8Array {
  const bytes = Buffer.from(data, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The tensors a message describes, or why they cannot be read. */
export function fromInline(list: unknown): InferTensor[] | { error: string } {
  if (!Array.isArray(list)) return { error: 'the Python stub sent a response without outputs' };
  const outputs: InferTensor[] = [];
  for (const d of list as Array<Record<string, unknown>>) {
    if (typeof d?.name !== 'string' || typeof d.datatype !== 'string' || !Array.isArray(d.shape) || typeof d.data !== 'string') {
      return { error: `the Python stub described output '${String(d?.name).slice(0, 100)}' without its name, datatype, shape or data` };
    }
    outputs.push({ name: d.name, datatype: d.datatype as InferTensor['datatype'], shape: d.shape as number[], data: inlineBytes(d.data) });
  }
  return outputs;
}
