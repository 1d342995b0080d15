/**
 * perf_analyzer's `--input-data <directory>`: one file per model input, named as the input, holding
 * one batch-1 sample: the raw little-endian bytes in row-major order for a fixed-size datatype,
 * or for BYTES a text file with one string per line. Every request sends that sample (repeated
 * for -b). Bad input is a UsageError naming the file and how to fix it.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { InferTensor } from '../executor/types.js';
import { UsageError } from '../../errors.js';
import type { ModelDescription, RequestInputs } from '../kserve/client/types.js';
import { elementSize } from '../kserve/datatypes.js';
import { joinBytesElements } from '../kserve/codec/bytes-elements.js';

/** The most bytes one input's file may hold: one sample of a benchmark, read whole into memory. */
export const MAX_SAMPLE_FILE_BYTES = 1 << 30;

/** The one request a directory describes, at this batch size. */
export function readDataDirectory(
  dir: string,
  model: ModelDescription,
  batchSize: number,
  sampleDims: Record<string, number[]>,
  fullShape: (dims: number[]) => number[],
  repeat: (sample: Uint8Array, times: number) => Uint8Array,
): RequestInputs[] {
  return [model.inputs.map((input): InferTensor => {
    const file = path.join(dir, input.name);
    // The name comes from the model (maybe from a server): it must not lead out of the directory.
    if (path.dirname(path.relative(dir, file)) !== '.' || input.name === '..' || input.name === '.') {
      throw new UsageError(`--input-data ${dir}: input "${input.name}" of model "${model.name}" cannot be a file name in the directory; use a JSON --input-data file for it`);
    }
    const bytes = readSample(file, input.name);
    const dims = sampleDims[input.name]!;
    const count = dims.reduce((a, b) => a * b, 1);
    if (input.datatype === 'BYTES') {
      const lines = bytes.toString('utf8').split(/\r?\n/);
      if (lines.at(-1) === '') lines.pop();  // the newline that ends the last line
      if (lines.length !== count) {
        throw new UsageError(`--input-data ${file}: ${lines.length} line(s), but one sample of BYTES input "${input.name}" with shape [${dims.join(',')}] needs ${count} strings, one a line; fix the file or pass --shape ${input.name}:...`);
      }
      const sample = joinBytesElements(lines.map((line) => new Uint8Array(Buffer.from(line, 'utf8'))));
      return { name: input.name, datatype: input.datatype, shape: fullShape(dims), data: repeat(sample, batchSize) };
    }
    const need = count * elementSize(input.datatype);
    if (bytes.byteLength !== need) {
      throw new UsageError(`--input-data ${file}: ${bytes.byteLength} bytes, but one sample of ${input.datatype} input "${input.name}" with shape [${dims.join(',')}] is ${need} bytes (raw little-endian, row-major); fix the file or pass --shape ${input.name}:...`);
    }
    return { name: input.name, datatype: input.datatype, shape: fullShape(dims), data: repeat(new Uint8Array(bytes), batchSize) };
  })];
}

function readSample(file: string, input: string): Buffer {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`--input-data ${path.dirname(file)}: ${code === 'ENOENT' ? `no file "${path.basename(file)}"` : (err as Error).message}; a data directory holds one file per input, named as the input ("${input}")`);
  }
  if (size > MAX_SAMPLE_FILE_BYTES) {
    throw new UsageError(`--input-data ${file}: ${size} bytes, more than gebe perf reads for one sample (${MAX_SAMPLE_FILE_BYTES}); give one batch-1 sample`);
  }
  return readFileSync(file);
}
