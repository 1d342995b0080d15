/**
 * The request tensors for `gebe infer`: images (PNG/PGM) into image-shaped inputs, a JSON file in
 * perf_analyzer's {"data": [{"<input>": [...]}]} layout (the same as `gebe perf --input-data`),
 * or random values. Batch size 1.
 */
import path from 'node:path';
import { GebeError, UsageError } from '../../errors.js';
import type { InferTensor } from '../../core/executor/types.js';
import { readImage, isImageFile } from '../../core/images/decode.js';
import { buildRequests, resolveSampleDims } from '../../core/perf/inputs.js';
import type { ModelDescription } from '../../core/kserve/client/types.js';
import { imageToTensor, type InvertMode } from './image-input.js';

export interface InputSpec {
  /** `[name=]file` entries: images or one JSON file. */
  files: string[];
  random: boolean;
  shapes: Record<string, number[]>;
  invert: InvertMode;
}

export interface BuiltInputs {
  tensors: InferTensor[];
  /** Per input, what was done to produce it (for the user). */
  notes: string[];
}

export function buildInferInputs(model: ModelDescription, formats: Record<string, string | undefined>, spec: InputSpec, cwd: string): BuiltInputs {
  const batched = model.maxBatchSize > 0;
  // --input zero / --input random, as perf's --input-data (whose reader words the errors for both).
  const generated = spec.files.filter((f) => f === 'zero' || f === 'random');
  if (generated.length > 0) {
    if (spec.files.length > 1 || spec.random) throw new UsageError(`--input ${generated[0]} gives every input; pass it alone`, 'drop the other --input values and --random');
    const dims = resolveSampleDims(model, spec.shapes);
    const kind = generated[0] as 'zero' | 'random';
    return { tensors: buildRequests(model, 1, dims, { kind })[0]!, notes: [`${kind === 'zero' ? 'zeros' : 'random values'} for every input`] };
  }
  if (spec.random) {
    if (spec.files.length > 0) throw new UsageError('--random and --input cannot be used together', 'pass one of them');
    const dims = resolveSampleDims(model, spec.shapes);
    return { tensors: buildRequests(model, 1, dims, { kind: 'random' })[0]!, notes: ['random values for every input'] };
  }
  if (spec.files.length === 0) {
    throw new UsageError(`gebe infer needs input data for model "${model.name}"`, 'pass --input <image.png|image.pgm|data.json> or --random');
  }
  const json = spec.files.filter((f) => f.toLowerCase().endsWith('.json'));
  if (json.length > 0) {
    if (spec.files.length > 1) throw new UsageError('a JSON --input gives every input; pass it alone', 'drop the other --input values');
    const file = path.resolve(cwd, json[0]!);
    const dims = resolveSampleDims(model, spec.shapes);
    try {
      const requests = buildRequests(model, 1, dims, { kind: 'file', path: file });
      return { tensors: requests[0]!, notes: [`${json[0]}: ${requests.length > 1 ? `entry 0 of ${requests.length}` : 'values'}`] };
    } catch (err) {
      // The shared reader words its errors for perf's flag; here the flag is --input.
      if (err instanceof GebeError) throw new UsageError(err.message.replace(/^--input-data /, '--input '), err.hint);
      throw err;
    }
  }
  const tensors: InferTensor[] = [];
  const notes: string[] = [];
  for (const entry of spec.files) {
    const eq = entry.indexOf('=');
    const named = eq > 0 && !isImageFile(entry.slice(0, eq)) ? entry.slice(0, eq) : undefined;
    const file = named ? entry.slice(eq + 1) : entry;
    if (!isImageFile(file)) {
      throw new UsageError(`--input ${entry}: not a .png, .pgm or .json file`, 'pass an image (PNG/PGM) or a JSON file of input values');
    }
    const input = named ? model.inputs.find((i) => i.name === named) : model.inputs.length === 1 ? model.inputs[0] : undefined;
    if (!input) {
      throw new UsageError(
        named ? `--input ${entry}: model "${model.name}" has no input "${named}"` : `--input ${entry}: model "${model.name}" has ${model.inputs.length} inputs; say which one the image is for`,
        `write --input <input>=${file}; the inputs are ${model.inputs.map((i) => `"${i.name}"`).join(', ')}`,
      );
    }
    const image = readImage(path.resolve(cwd, file));
    const built = imageToTensor(image, input, batched, formats[input.name], spec.invert, file);
    const earlier = tensors.findIndex((t) => t.name === input.name);
    if (earlier >= 0) {
      // Several images for one input of a batching model: one request, one batch item per image.
      if (!batched) {
        throw new UsageError(`--input ${entry}: input "${input.name}" already has an image and model "${model.name}" does not batch (max_batch_size 0)`, 'pass one image per input');
      }
      const items = tensors[earlier]!.shape[0]! + 1;
      if (items > model.maxBatchSize) {
        throw new UsageError(`${items} images for input "${input.name}" exceed max_batch_size ${model.maxBatchSize} of model "${model.name}"`, `pass at most ${model.maxBatchSize} images per request`);
      }
      const joined = new Uint8Array(tensors[earlier]!.data.byteLength + built.tensor.data.byteLength);
      joined.set(tensors[earlier]!.data);
      joined.set(built.tensor.data, tensors[earlier]!.data.byteLength);
      tensors[earlier] = { ...tensors[earlier]!, shape: [items, ...built.tensor.shape.slice(1)], data: joined };
    } else {
      tensors.push(built.tensor);
    }
    notes.push(`${file} → ${input.name}${earlier >= 0 ? ` item ${tensors[earlier]!.shape[0]! - 1}` : ` [${built.tensor.shape.join(', ')}]`}${built.steps.length ? `: ${built.steps.join(', ')}` : ''}`);
  }
  const missing = model.inputs.filter((i) => !tensors.some((t) => t.name === i.name));
  if (missing.length > 0) {
    throw new UsageError(`model "${model.name}" also needs ${missing.map((i) => `"${i.name}"`).join(', ')}`, 'pass a JSON --input with every input, or --random');
  }
  return { tensors, notes };
}
