/**
 * The label files of Triton's classification extension: an output's `label_filename` (relative to
 * the model directory, one label per line) is read at load and held natively (executor
 * `classLabels`), where every path's classification reads it: the JS path through the addon, the
 * native HTTP and gRPC routes through publication (http/publish-models.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ModelConfig } from '../config/model-config.js';
import { classLabels, type ClassLabels } from '../executor/classification.js';
import { resolveInside } from '../repository/inside.js';

/** The most bytes a label file may have (it is read whole, at load). */
export const MAX_LABEL_FILE_BYTES = 16 * 1024 * 1024;

/** Per output name, its labels (index → label), for the outputs whose config has a label_filename. */
export type OutputLabelLines = Map<string, string[]>;

/** Per output name, its labels as the classification holds them. */
export type OutputLabels = Map<string, ClassLabels>;

/** Reads the label files a config names, relative to the model directory; throws naming the file. */
export function readOutputLabels(modelDir: string, config: ModelConfig): OutputLabelLines {
  const labels: OutputLabelLines = new Map();
  for (const output of config.output ?? []) {
    if (!output.label_filename) continue;
    const where = `output '${output.name}' label_filename "${output.label_filename}"`;
    const inside = resolveInside(modelDir, modelDir, output.label_filename);
    if (!inside.ok) throw new Error(`${where} is ${inside.reason === 'outside' ? 'outside the model directory' : 'missing'}`);
    const file = path.join(modelDir, output.label_filename);
    const size = fs.statSync(file).size;
    if (size > MAX_LABEL_FILE_BYTES) throw new Error(`${where} has ${size} bytes, more than the ${MAX_LABEL_FILE_BYTES} a label file may have`);
    labels.set(output.name, fs.readFileSync(file, 'utf8').split(/\r?\n/).filter((line, i, all) => i < all.length - 1 || line !== ''));
  }
  return labels;
}

/** readOutputLabels, held natively: what a loaded model keeps (the lines themselves are not kept). */
export function loadOutputLabels(modelDir: string, config: ModelConfig): OutputLabels {
  return new Map([...readOutputLabels(modelDir, config)].map(([output, lines]) => [output, classLabels(lines)]));
}
