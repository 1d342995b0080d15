/**
 * Reads the header of the .om file ATC wrote, through the OM inspection in src/core/model, and
 * reports a bad file as data (convert prints it next to the ATC log) instead of throwing.
 */
import fs from 'node:fs';
import { OM_HEADER_SIZE, OmParseError, readOmHeader, type Om2Header, type OmHeader } from '../model/index.js';

export type OmInspection = OmHeader | Om2Header | { format: 'invalid'; problem: string };

export function inspectOm(file: string): OmInspection {
  let bytes: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      bytes = Buffer.alloc(OM_HEADER_SIZE);
      bytes = bytes.subarray(0, fs.readSync(fd, bytes, 0, OM_HEADER_SIZE, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    return { format: 'invalid', problem: `cannot open: ${(err as Error).message}` };
  }
  try {
    return readOmHeader(bytes);
  } catch (err) {
    if (err instanceof OmParseError) return { format: 'invalid', problem: err.message };
    throw err;
  }
}
