/**
 * NumPy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html),
 * versions 1.0-3.0, for the fixed-size numeric dtypes KServe has: the files msit and ais_bench
 * read and write. Data is kept as raw little-endian bytes, the layout every gebe tensor uses;
 * big-endian files are byte-swapped on read. Object, string, structured and Fortran-order arrays
 * are refused with a message that says how to re-save them.
 */
import type { Datatype } from '../executor/types.js';
import { DATATYPE_SIZE } from '../kserve/datatypes.js';

export type NpyDatatype = Exclude<Datatype, 'BYTES'>;

export interface NpyArray {
  datatype: NpyDatatype;
  shape: number[];
  /** Little-endian, C order. */
  data: Uint8Array;
}

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY
/** Headers are a few hundred bytes; a larger one is not a file numpy wrote. */
const MAX_HEADER_BYTES = 1 << 16;

/** numpy dtype kind+size (without byte order) → KServe datatype. */
const FROM_DESCR: Record<string, NpyDatatype> = {
  b1: 'BOOL', u1: 'UINT8', u2: 'UINT16', u4: 'UINT32', u8: 'UINT64',
  i1: 'INT8', i2: 'INT16', i4: 'INT32', i8: 'INT64',
  f2: 'FP16', f4: 'FP32', f8: 'FP64',
};
const TO_DESCR = Object.fromEntries(Object.entries(FROM_DESCR).map(([d, t]) => [t, d])) as Record<string, string>;

export class NpyError extends Error {}

/** Parses one .npy file; `file` names it in errors. */
export function parseNpy(bytes: Uint8Array, file: string): NpyArray {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.byteLength < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw new NpyError(`${file} is not a .npy file (no \\x93NUMPY magic); save it with numpy.save`);
  const major = buf[6]!;
  if (major < 1 || major > 3) throw new NpyError(`${file}: .npy version ${major}.${buf[7]} is not one gebe reads (1.0-3.0)`);
  const lengthBytes = major === 1 ? 2 : 4;
  const headerLength = major === 1 ? buf.readUInt16LE(8) : buf.byteLength >= 12 ? buf.readUInt32LE(8) : Infinity;
  const start = 8 + lengthBytes;
  if (headerLength > MAX_HEADER_BYTES || start + headerLength > buf.byteLength) throw new NpyError(`${file}: the .npy header claims ${headerLength} bytes, beyond the file`);
  const header = buf.subarray(start, start + headerLength).toString(major === 3 ? 'utf8' : 'latin1');
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) throw new NpyError(`${file}: the .npy header is not the dict numpy writes: ${header.trim().slice(0, 120)}`);
  if (fortran === 'True') throw new NpyError(`${file} is in Fortran order; save it with numpy.save(file, numpy.ascontiguousarray(a))`);
  const order = descr[0];
  const datatype = FROM_DESCR[descr.slice(1)];
  if (!datatype || !['<', '>', '|', '='].includes(order!)) {
    throw new NpyError(`${file} holds dtype '${descr}', which gebe cannot compare; save it as one of float16/32/64, int8-64, uint8-64 or bool`);
  }
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  if (shape.some((d) => !Number.isSafeInteger(d) || d < 0)) throw new NpyError(`${file}: shape (${shapeText}) is not a list of sizes`);
  const size = DATATYPE_SIZE[datatype];
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLength;
  if (buf.byteLength - dataStart !== count * size) {
    throw new NpyError(`${file} has ${buf.byteLength - dataStart} data bytes but shape (${shape.join(', ')}) of ${descr} needs ${count * size}`);
  }
  const data = new Uint8Array(buf.subarray(dataStart)); // a copy, not a view of the file's buffer
  if (order === '>' && size > 1) swapBytes(data, size);
  return { datatype, shape, data };
}

/** The .npy (version 1.0) bytes of a little-endian C-order array. */
export function formatNpy(array: NpyArray): Buffer {
  const descr = `<${TO_DESCR[array.datatype]}`.replace('<b1', '|b1').replace('<u1', '|u1').replace('<i1', '|i1');
  const shape = array.shape.length === 1 ? `(${array.shape[0]},)` : `(${array.shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad with spaces so the data starts on a 64-byte boundary, ending in '\n', as numpy does.
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + array.data.byteLength);
  MAGIC.copy(out, 0);
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  out.set(array.data, 10 + header.length);
  return out;
}

function swapBytes(data: Uint8Array, size: number): void {
  for (let i = 0; i < data.byteLength; i += size) data.subarray(i, i + size).reverse();
}
