/**
 * Tensor data as JSON: nested or flat row-major arrays → raw little-endian bytes (for requests), and
 * raw bytes → JSON text (for responses). Binary tensors never come through here.
 */
import type { Datatype } from '../../executor/types.js';
import { allocTyped, bytesOf, isBinaryOnly, typedView, type NumericArray } from '../datatypes.js';
import { ProtocolError } from '../protocol-error.js';
import { joinBytesElements, splitBytesElements } from './bytes-elements.js';

const INT_RANGE: Partial<Record<Datatype, [number, number]>> = {
  INT8: [-128, 127], INT16: [-32768, 32767], INT32: [-2147483648, 2147483647],
  UINT8: [0, 255], UINT16: [0, 65535], UINT32: [0, 4294967295],
  INT64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], UINT64: [0, Number.MAX_SAFE_INTEGER],
};

/**
 * Converts JSON `data` of `count` elements into bytes. Walks the (possibly nested) arrays once,
 * checking each element's type, and fails on the first mismatch with the element index.
 */
export function jsonDataToBytes(data: unknown, datatype: Datatype, count: number, tensor: string): Uint8Array {
  if (isBinaryOnly(datatype)) {
    throw ProtocolError.badRequest(`input '${tensor}' has datatype ${datatype}, which has no JSON representation; send it with the binary tensor data extension (parameter "binary_data_size")`);
  }
  if (!Array.isArray(data)) {
    throw ProtocolError.badRequest(`input '${tensor}' has no 'data' array; send the elements as a JSON array or use the binary tensor data extension`);
  }
  if (datatype === 'BYTES') return jsonBytesToBytes(data, count, tensor);
  const out = allocTyped(datatype, count);
  const written = fill(data, out, datatype, tensor, 0, 0);
  if (written !== count) throw countMismatch(tensor, written, count);
  return bytesOf(out);
}

/**
 * How deep a tensor's JSON values may nest (infer's `data`, generate's fields); deeper is refused,
 * so no request can make a walk recurse without bound. The native JSON decoder applies the same
 * number (kMaxDataDepth in native/src/http/json_infer_request.cc).
 */
export const MAX_DATA_DEPTH = 32;

/** 400 for values nested deeper than MAX_DATA_DEPTH; `what` names them ("'data' of input 'x'"). */
export function nestedTooDeep(what: string): ProtocolError {
  return ProtocolError.badRequest(`${what} is nested more than ${MAX_DATA_DEPTH} levels deep`);
}

function fill(data: unknown[], out: NumericArray, datatype: Datatype, tensor: string, index: number, depth: number): number {
  if (depth > MAX_DATA_DEPTH) throw nestedTooDeep(`'data' of input '${tensor}'`);
  const range = INT_RANGE[datatype];
  const big = datatype === 'INT64' || datatype === 'UINT64';
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (Array.isArray(v)) {
      index = fill(v, out, datatype, tensor, index, depth + 1);
      continue;
    }
    if (index >= out.length) throw countMismatch(tensor, countFlat(data, i) + index, out.length);
    if (datatype === 'BOOL') {
      if (typeof v !== 'boolean') throw elementError(tensor, index, v, 'a boolean');
      out[index++] = v ? 1 : 0;
    } else if (typeof v !== 'number') {
      throw elementError(tensor, index, v, range ? 'an integer' : 'a number');
    } else if (range) {
      if (!Number.isInteger(v) || v < range[0] || v > range[1]) {
        throw elementError(tensor, index, v, `an integer in [${range[0]}, ${range[1]}] for ${datatype}`);
      }
      if (big) (out as BigInt64Array)[index++] = BigInt(v);
      else (out as Int32Array)[index++] = v;
    } else {
      (out as Float32Array)[index++] = v;
    }
  }
  return index;
}

function jsonBytesToBytes(data: unknown[], count: number, tensor: string): Uint8Array {
  const encoder = new TextEncoder();
  const elements: Uint8Array[] = [];
  const walk = (items: unknown[], depth: number): void => {
    if (depth > MAX_DATA_DEPTH) throw nestedTooDeep(`'data' of input '${tensor}'`);
    for (const v of items) {
      if (Array.isArray(v)) walk(v, depth + 1);
      else if (typeof v === 'string') elements.push(encoder.encode(v));
      else throw elementError(tensor, elements.length, v, 'a string for BYTES');
      if (elements.length > count) throw countMismatch(tensor, elements.length, count);
    }
  };
  walk(data, 0);
  if (elements.length !== count) throw countMismatch(tensor, elements.length, count);
  return joinBytesElements(elements);
}

function countFlat(data: unknown[], from: number): number {
  let n = 0;
  for (let i = from; i < data.length; i++) n += Array.isArray(data[i]) ? countFlat(data[i] as unknown[], 0) : 1;
  return n;
}

function countMismatch(tensor: string, got: number, expected: number): ProtocolError {
  return ProtocolError.badRequest(`unexpected number of elements ${got} in 'data' of input '${tensor}', its shape needs ${expected}`);
}

function elementError(tensor: string, index: number, value: unknown, expected: string): ProtocolError {
  const shown = typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value) ?? String(value);
  return ProtocolError.badRequest(`element ${index} of input '${tensor}' is ${shown.length > 40 ? shown.slice(0, 40) + '…' : shown}, expected ${expected}`);
}

/**
 * Serializes output bytes as the JSON text of a flat `data` array. Integers of 64 bits are written
 * exactly (from BigInt). Non-finite floats are written as Triton writes them (rapidjson's
 * kWriteNanAndInfFlag): the literals NaN, Infinity and -Infinity, which Python's json and
 * tritonclient read back; strict JSON has no spelling for them, and null would lose which it was.
 */
function nonFiniteLiteral(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  return v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : String(v);
}

export function bytesToJsonText(datatype: Datatype, bytes: Uint8Array, tensor: string): string {
  if (isBinaryOnly(datatype)) {
    throw ProtocolError.badRequest(`output '${tensor}' has datatype ${datatype}, which has no JSON representation; request it with "binary_data": true`);
  }
  if (datatype === 'BYTES') {
    const decoder = new TextDecoder();
    return JSON.stringify(splitBytesElements(bytes).map((e) => decoder.decode(e)));
  }
  const view = typedView(datatype, bytes);
  if (datatype === 'BOOL') return JSON.stringify(Array.from(view as Uint8Array, (v) => v !== 0));
  if (datatype === 'FP32' || datatype === 'FP64') {
    const floats = view as Float32Array;
    for (let i = 0; i < floats.length; i++) {
      if (!Number.isFinite(floats[i])) return `[${Array.from(floats, nonFiniteLiteral).join(',')}]`;
    }
  }
  return `[${view.join(',')}]`;
}
