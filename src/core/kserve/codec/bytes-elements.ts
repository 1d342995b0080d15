/**
 * BYTES tensors in KServe's binary layout: each element is a 4-byte little-endian length followed
 * by that many bytes.
 */
import { ProtocolError } from '../protocol-error.js';

/** Counts the elements of a serialized BYTES tensor, refusing truncated or trailing data. */
export function countBytesElements(data: Uint8Array, tensor: string): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;
  let count = 0;
  while (offset < data.byteLength) {
    if (offset + 4 > data.byteLength) {
      throw ProtocolError.badRequest(`BYTES data of '${tensor}' is truncated: element ${count} has an incomplete 4-byte length prefix`);
    }
    const len = view.getUint32(offset, true);
    offset += 4 + len;
    if (offset > data.byteLength) {
      throw ProtocolError.badRequest(`BYTES data of '${tensor}' is truncated: element ${count} declares ${len} bytes but only ${data.byteLength - (offset - len)} remain`);
    }
    count++;
  }
  return count;
}

/** Splits a serialized BYTES tensor into element views (no copies). */
export function splitBytesElements(data: Uint8Array): Uint8Array[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out: Uint8Array[] = [];
  let offset = 0;
  while (offset + 4 <= data.byteLength) {
    const len = view.getUint32(offset, true);
    if (offset + 4 + len > data.byteLength) break;
    out.push(data.subarray(offset + 4, offset + 4 + len));
    offset += 4 + len;
  }
  return out;
}

/** Serializes elements into the length-prefixed layout. */
export function joinBytesElements(elements: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const e of elements) total += 4 + e.byteLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const e of elements) {
    view.setUint32(offset, e.byteLength, true);
    out.set(e, offset + 4);
    offset += 4 + e.byteLength;
  }
  return out;
}
