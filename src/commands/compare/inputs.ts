/**
 * The samples `gebe compare` sends: perf's --input-data (zero, random, a JSON file), or files in
 * ais_bench's layout — one directory per model input (comma-separated, in input order; or one
 * directory whose sub-directories are named after the inputs, as --dump writes them), matched by
 * sorted file name, each file a .npy, a raw .bin or, for image inputs, a PNG/PGM picture.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { InferTensor, TensorMetadata } from '../../core/executor/types.js';
import { isImageFile, readImage } from '../../core/images/decode.js';
import { parseNpy, NpyError } from '../../core/numpy/npy.js';
import { buildRequests, resolveSampleDims } from '../../core/perf/inputs.js';
import type { ModelDescription } from '../../core/kserve/client/types.js';
import { DATATYPE_SIZE } from '../../core/kserve/datatypes.js';
import { imageToTensor } from '../infer/image-input.js';

export interface Sample {
  /** The sample's name: the input file's base name, or sample_<k> for generated data. */
  name: string;
  tensors: InferTensor[];
}

export interface SampleSpec {
  /** --input-data: zero | random | a .json file | directories or files (comma-separated). */
  inputData: string;
  shapes: Record<string, number[]>;
  formats: Record<string, string | undefined>;
}

/** Directories with more files than this are not a test set gebe should load into memory at once. */
export const MAX_SAMPLES = 10_000;

const FILE_KINDS = ['.npy', '.bin'];

export function buildSamples(model: ModelDescription, spec: SampleSpec, cwd: string): Sample[] {
  const value = spec.inputData;
  if (value === 'zero' || value === 'random' || value.toLowerCase().endsWith('.json')) {
    const data = value === 'zero' ? { kind: 'zero' as const } : value === 'random' ? { kind: 'random' as const } : { kind: 'file' as const, path: path.resolve(cwd, value) };
    const requests = buildRequests(model, 1, resolveSampleDims(model, spec.shapes), data);
    return requests.map((tensors, k) => ({ name: `sample_${k}`, tensors }));
  }
  const sources = inputSources(model, value, cwd);
  const lists = sources.map((source) => filesOf(source));
  const count = lists[0]!.length;
  lists.forEach((files, i) => {
    if (files.length !== count) {
      throw new UsageError(`--input-data: ${sources[i]} has ${files.length} files but ${sources[0]} has ${count}; every input needs one file per sample, matched by sorted name`);
    }
  });
  const names = lists[0]!.map((f) => path.basename(f).replace(/\.[^.]+$/, ''));
  const twice = names.find((n, k) => names.indexOf(n) !== k);
  if (twice !== undefined) {
    throw new UsageError(`--input-data ${sources[0]} has two files for sample "${twice}" (${lists[0]!.filter((f, k) => names[k] === twice).map((f) => path.basename(f)).join(', ')}); samples are named by file base name, so keep one`);
  }
  return Array.from({ length: count }, (_, k) => ({
    name: names[k]!,
    tensors: model.inputs.map((input, i) => readInputFile(lists[i]![k]!, input, model, spec)),
  }));
}

/** One path per model input, in the model's order. */
function inputSources(model: ModelDescription, value: string, cwd: string): string[] {
  const parts = value.split(',').map((p) => path.resolve(cwd, p.trim()));
  for (const p of parts) {
    if (!fs.existsSync(p)) throw new UsageError(`--input-data ${p}: no such file or directory; give zero, random, a .json file, or directories of .npy/.bin/image files`);
  }
  if (parts.length === 1 && model.inputs.length > 1 && fs.statSync(parts[0]!).isDirectory()) {
    // --dump's layout: <dir>/<input name>/<sample>.npy
    const byName = model.inputs.map((i) => path.join(parts[0]!, safeName(i.name)));
    if (byName.every((d) => fs.existsSync(d) && fs.statSync(d).isDirectory())) return byName;
  }
  if (parts.length === 1 && model.inputs.length === 1) {
    const sub = path.join(parts[0]!, safeName(model.inputs[0]!.name));
    if (fs.existsSync(sub) && fs.statSync(sub).isDirectory()) return [sub];
  }
  if (parts.length !== model.inputs.length) {
    throw new UsageError(
      `--input-data gives ${parts.length} path${parts.length === 1 ? '' : 's'} but model "${model.name}" has ${model.inputs.length} inputs (${model.inputs.map((i) => `"${i.name}"`).join(', ')})`,
      'give one directory per input, comma-separated in input order, or one directory with a sub-directory per input name',
    );
  }
  return parts;
}

function filesOf(source: string): string[] {
  if (!fs.statSync(source).isDirectory()) return [source];
  const files = fs.readdirSync(source)
    .filter((f) => FILE_KINDS.includes(path.extname(f).toLowerCase()) || isImageFile(f))
    .sort()
    .map((f) => path.join(source, f));
  if (files.length === 0) throw new UsageError(`--input-data ${source} holds no .npy, .bin, .png or .pgm files`);
  if (files.length > MAX_SAMPLES) throw new UsageError(`--input-data ${source} holds ${files.length} files, more than the ${MAX_SAMPLES} one compare run takes; split the set`);
  return files;
}

/** A tensor or sample name as a file name: anything but letters, digits, '.', '_' and '-' becomes '_'. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
}

function readInputFile(file: string, input: TensorMetadata, model: ModelDescription, spec: SampleSpec): InferTensor {
  const batched = model.maxBatchSize > 0;
  if (isImageFile(file)) return imageToTensor(readImage(file), input, batched, spec.formats[input.name], 'auto', file).tensor;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (input.datatype === 'BYTES') throw new UsageError(`${file}: input "${input.name}" is BYTES; gebe compare reads numeric inputs only`);
  if (path.extname(file).toLowerCase() === '.npy') {
    let array;
    try {
      array = parseNpy(bytes, file);
    } catch (err) {
      if (err instanceof NpyError) throw new UsageError(err.message);
      throw err;
    }
    if (array.datatype !== input.datatype) {
      throw new UsageError(`${file} holds ${array.datatype} but input "${input.name}" is ${input.datatype}`, `convert it, e.g. numpy.save(f, a.astype(...))`);
    }
    // ais_bench files carry the batch dimension; a file of one item without it gets batch 1.
    const shape = batched && array.shape.length === input.shape.length - 1 ? [1, ...array.shape] : array.shape;
    const fits = shape.length === input.shape.length && input.shape.every((d, i) => d < 0 || d === shape[i]);
    if (!fits || (batched && shape[0]! > model.maxBatchSize)) {
      throw new UsageError(`${file} has shape [${array.shape.join(', ')}], which does not fit input "${input.name}" [${input.shape.join(', ')}]${batched ? ` (batch at most ${model.maxBatchSize})` : ''}`);
    }
    return { name: input.name, datatype: input.datatype, shape, data: array.data };
  }
  // .bin: raw little-endian bytes, as ais_bench and numpy's tofile write them; the shape comes from the model.
  const dims = resolveSampleDims({ ...model, inputs: [input] }, spec.shapes[input.name] ? { [input.name]: spec.shapes[input.name]! } : {})[input.name]!;
  const itemBytes = dims.reduce((a, b) => a * b, 1) * DATATYPE_SIZE[input.datatype];
  const items = itemBytes > 0 ? bytes.byteLength / itemBytes : 0;
  if (!Number.isInteger(items) || items < 1 || (!batched && items !== 1) || (batched && items > model.maxBatchSize)) {
    throw new UsageError(
      `${file} has ${bytes.byteLength} bytes, which is not ${batched ? `1 to ${model.maxBatchSize} items` : 'one tensor'} of ${input.datatype} [${dims.join(', ')}] (${itemBytes} bytes each) for input "${input.name}"`,
      'check the file, or pass --shape for dynamic dims',
    );
  }
  return { name: input.name, datatype: input.datatype, shape: batched ? [items, ...dims] : dims, data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
