/**
 * Reads a model file by its extension: ONNX graphs are inspected, OM files have their header read.
 * Failures come back as data (`kind: 'invalid'`) so the linter can turn them into diagnostics.
 */
import fs from 'node:fs';
import path from 'node:path';
import { OnnxParseError, type OnnxModelInfo } from './onnx.js';
import { inspectOnnxFile } from './onnx-file.js';
import { OM_HEADER_SIZE, OmParseError, readOmHeader, type Om2Header, type OmHeader } from './om.js';

export type ModelFileInfo =
  | { kind: 'onnx'; path: string; info: OnnxModelInfo }
  | { kind: 'om'; path: string; header: OmHeader | Om2Header }
  | { kind: 'invalid'; path: string; format: 'onnx' | 'om'; message: string }
  | { kind: 'other'; path: string };

export const MODEL_EXTENSIONS = ['.onnx', '.pb', '.om', '.plan', '.pt', '.savedmodel', '.graphdef'];

export function inspectModelFile(file: string): ModelFileInfo {
  const ext = path.extname(file).toLowerCase();
  try {
    if (ext === '.onnx') return { kind: 'onnx', path: file, info: inspectOnnxFile(file) };
    if (ext === '.om') {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      try {
        if (!fs.fstatSync(fd).isFile()) throw new OmParseError('it is not a regular file');
        const head = Buffer.alloc(OM_HEADER_SIZE);
        const n = fs.readSync(fd, head, 0, OM_HEADER_SIZE, 0);
        return { kind: 'om', path: file, header: readOmHeader(head.subarray(0, n)) };
      } finally {
        fs.closeSync(fd);
      }
    }
  } catch (err) {
    const format = ext === '.om' ? 'om' : 'onnx';
    if (err instanceof OnnxParseError || err instanceof OmParseError) return { kind: 'invalid', path: file, format, message: err.message };
    const code = (err as NodeJS.ErrnoException).code;
    const message = code === 'EACCES' ? 'permission denied' : code === 'ELOOP' ? 'a symlink loop' : (err as Error).message;
    return { kind: 'invalid', path: file, format, message: `cannot read the file: ${message}` };
  }
  return { kind: 'other', path: file };
}
