/**
 * The 256-byte header of an offline model (.om) file, as GE writes it (little-endian, packed).
 * Checked after ATC succeeds, so a truncated or foreign file is caught before it is deployed.
 */
import fs from 'node:fs';

export const OM_MAGIC = 0x444f4d49; // "IMOD" read as a little-endian u32
export const OM_HEADER_SIZE = 256;

export interface OmHeader {
  format: 'om';
  headSize: number;
  version: number;
  /** Length of the data after the header. */
  length: number;
  isEncrypted: boolean;
  modelType: number;
  name: string;
  ops: number;
  platformVersion: string;
  modelLength: bigint;
  /** GE's is_unknow_model flag: 1 for a dynamic-shape model. */
  isUnknownModel: boolean;
}

export type OmInspection = OmHeader | { format: 'om2' } | { format: 'invalid'; problem: string };

/** Reads and checks the header; never throws for a bad file (it reports the problem). */
export function inspectOm(file: string): OmInspection {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    return { format: 'invalid', problem: `cannot open: ${(err as Error).message}` };
  }
  const header = Buffer.alloc(OM_HEADER_SIZE);
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, OM_HEADER_SIZE, 0);
  } finally {
    fs.closeSync(fd);
  }
  return parseOmHeader(header.subarray(0, read));
}

export function parseOmHeader(bytes: Uint8Array): OmInspection {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Newer CANN can write "OM2" models, which are ZIP archives with their own layout.
  if (buf.length >= 4 && buf.readUInt32BE(0) === 0x504b0304) return { format: 'om2' };
  if (buf.length < OM_HEADER_SIZE) {
    return { format: 'invalid', problem: `${buf.length} bytes, shorter than the ${OM_HEADER_SIZE}-byte OM header` };
  }
  const magic = buf.readUInt32LE(0);
  if (magic !== OM_MAGIC) {
    return { format: 'invalid', problem: `magic is "${printable(buf.subarray(0, 4))}" (0x${magic.toString(16)}), expected "IMOD"` };
  }
  const headSize = buf.readUInt32LE(4);
  if (headSize !== OM_HEADER_SIZE) return { format: 'invalid', problem: `header size field is ${headSize}, expected ${OM_HEADER_SIZE}` };
  return {
    format: 'om',
    headSize,
    version: buf.readUInt32LE(8),
    length: buf.readUInt32LE(76),
    isEncrypted: buf[80] !== 0,
    modelType: buf[82]!,
    name: cString(buf.subarray(84, 116)),
    ops: buf.readUInt32LE(116),
    platformVersion: cString(buf.subarray(160, 180)),
    modelLength: buf.readBigUInt64LE(184),
    isUnknownModel: buf[193] === 1,
  };
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('latin1');
}

function printable(bytes: Buffer): string {
  return [...bytes].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
}

/** Builds a header as GE lays it out: used by tests and the stand-in atc. */
export function buildOmHeader(fields: { name: string; isUnknownModel: boolean; length: number; platformVersion?: string }): Buffer {
  const buf = Buffer.alloc(OM_HEADER_SIZE);
  buf.writeUInt32LE(OM_MAGIC, 0);
  buf.writeUInt32LE(OM_HEADER_SIZE, 4);
  buf.writeUInt32LE(1, 8);
  buf.writeUInt32LE(fields.length, 76);
  buf[82] = 1;
  buf.write(fields.name.slice(0, 31), 84, 'latin1');
  buf.write((fields.platformVersion ?? '').slice(0, 19), 160, 'latin1');
  buf.writeBigUInt64LE(BigInt(fields.length), 184);
  buf[193] = fields.isUnknownModel ? 1 : 0;
  return buf;
}
