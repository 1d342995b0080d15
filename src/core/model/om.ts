/**
 * The Ascend offline-model (.om) header: 256 bytes, little-endian, packed (reference/ascend.md).
 * Only the header is read; the partitions that follow (protobuf ModelDef, weights, kernels) are not.
 */
export const OM_HEADER_SIZE = 256;
const OM_MAGIC = 0x444f4d49; // bytes "IMOD"

export interface OmHeader {
  format: 'om';
  headSize: number;
  version: number;
  /** Total length of the partitions after the header. */
  length: number;
  isEncrypted: boolean;
  modelType: number;
  name: string;
  ops: number;
  omIrVersion: number;
  modelNum: number;
  platformVersion: string;
  platformType: number;
  modelLength: bigint;
  /** is_unknow_model: 1 when the model has dynamic shapes. */
  isDynamic: boolean;
}

/** OM2 files are ZIP archives; their header is the ZIP local-file header, not IMOD. */
export interface Om2Header {
  format: 'om2';
}

export class OmParseError extends Error {
  override name = 'OmParseError';
}

function cString(bytes: Uint8Array, offset: number, size: number): string {
  const slice = bytes.subarray(offset, offset + size);
  const nul = slice.indexOf(0);
  return Buffer.from(nul === -1 ? slice : slice.subarray(0, nul)).toString('utf8');
}

/** Reads the header from the first bytes of a file (256 are enough). Throws OmParseError otherwise. */
export function readOmHeader(bytes: Uint8Array): OmHeader | Om2Header {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) {
    return { format: 'om2' };
  }
  if (bytes.length < OM_HEADER_SIZE) {
    throw new OmParseError(`the file has ${bytes.length} bytes, fewer than the ${OM_HEADER_SIZE}-byte OM header`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, OM_HEADER_SIZE);
  const magic = view.getUint32(0, true);
  if (magic !== OM_MAGIC) {
    const shown = Buffer.from(bytes.subarray(0, 4)).toString('hex');
    throw new OmParseError(`the file does not start with the OM magic "IMOD" (found 0x${shown})`);
  }
  const headSize = view.getUint32(4, true);
  if (headSize !== OM_HEADER_SIZE) {
    throw new OmParseError(`the OM header declares headsize ${headSize}, expected ${OM_HEADER_SIZE}`);
  }
  return {
    format: 'om',
    headSize,
    version: view.getUint32(8, true),
    length: view.getUint32(76, true),
    isEncrypted: view.getUint8(80) !== 0,
    modelType: view.getUint8(82),
    name: cString(bytes, 84, 32),
    ops: view.getUint32(116, true),
    omIrVersion: view.getUint32(152, true),
    modelNum: view.getUint32(156, true),
    platformVersion: cString(bytes, 160, 20),
    platformType: view.getUint8(180),
    modelLength: view.getBigUint64(184, true),
    isDynamic: view.getUint8(193) === 1,
  };
}

/** Builds a header, for fixtures and tests (the inverse of readOmHeader). */
export function encodeOmHeader(h: { name: string; version?: number; isDynamic?: boolean; platformVersion?: string }): Uint8Array {
  const bytes = new Uint8Array(OM_HEADER_SIZE);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, OM_MAGIC, true);
  view.setUint32(4, OM_HEADER_SIZE, true);
  view.setUint32(8, h.version ?? 1, true);
  view.setUint8(82, 1);
  bytes.set(Buffer.from(h.name, 'utf8').subarray(0, 31), 84);
  bytes.set(Buffer.from(h.platformVersion ?? 'Ascend310P3', 'utf8').subarray(0, 19), 160);
  view.setUint8(193, h.isDynamic ? 1 : 0);
  return bytes;
}
