/**
 * What model.py answered, checked against the model's config before a client sees it: declared
 * names, the config's datatypes and dims, byte sizes that agree with the shapes, and every output
 * the request asked for present. A bad answer fails that request with a message naming the output.
 */
import { formatShape } from '../executor/format-shape.js';
import { elementSize } from '../kserve/datatypes.js';
import type { InferTensor, TensorMetadata } from '../executor/types.js';
import { countBytesElements } from '../kserve/codec/bytes-elements.js';

const MAX_RANK = 64;

/** The outputs in the config's order; throws an Error whose message says what is wrong. */
export function checkOutputs(model: string, declared: readonly TensorMetadata[], outputs: InferTensor[], requested: readonly string[] | undefined): InferTensor[] {
  const byName = new Map<string, InferTensor>();
  for (const t of outputs) {
    const meta = declared.find((d) => d.name === t.name);
    if (!meta) {
      throw new Error(`model.py of '${model}' returned output '${t.name.slice(0, 200)}', which config.pbtxt does not declare (its outputs are ${declared.map((d) => `'${d.name}'`).join(', ')})`);
    }
    if (byName.has(t.name)) throw new Error(`model.py of '${model}' returned output '${t.name}' twice`);
    if (t.datatype !== meta.datatype) {
      throw new Error(`model.py of '${model}' returned output '${t.name}' as ${t.datatype}, but config.pbtxt declares ${meta.datatype === 'BYTES' ? 'TYPE_STRING' : `TYPE_${meta.datatype}`} (convert it with .astype(...) before pb_utils.Tensor)`);
    }
    const shape = t.shape;
    const fits = shape.length === meta.shape.length && shape.length <= MAX_RANK &&
      shape.every((d, i) => Number.isSafeInteger(d) && d >= 0 && (meta.shape[i] === -1 || meta.shape[i] === d));
    if (!fits) {
      throw new Error(`model.py of '${model}' returned output '${t.name}' with shape ${formatShape(shape.slice(0, MAX_RANK))}, but config.pbtxt declares ${formatShape(meta.shape)}`);
    }
    const elements = shape.reduce((a, b) => a * b, 1);
    const size = elementSize(t.datatype);
    const agrees = size > 0 ? t.data.byteLength === elements * size : bytesCount(t) === elements;
    if (!agrees) throw new Error(`model.py of '${model}' returned output '${t.name}' whose data does not match its shape ${formatShape(shape)}`);
    byName.set(t.name, t);
  }
  for (const name of requested ?? []) {
    if (!byName.has(name)) throw new Error(`model.py of '${model}' returned no output '${name}', which the request asks for`);
  }
  return declared.flatMap((d) => (byName.has(d.name) ? [byName.get(d.name)!] : []));
}

function bytesCount(t: InferTensor): number {
  try {
    return countBytesElements(t.data, t.name);
  } catch {
    return -1;
  }
}
