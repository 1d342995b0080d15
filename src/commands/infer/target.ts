/**
 * What `gebe infer` and `gebe warmup -u` talk to: a model described the same way whether it runs
 * in this process (the executor) or on a KServe v2 server.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CompileReport, InferTensor } from '../../core/executor/types.js';
import type { ModelDescription } from '../../core/kserve/client/types.js';
import type { StreamedResponse } from '../../core/kserve/client/grpc.js';
import type { ModelConfig } from '../../core/config/model-config.js';

export interface InferTarget {
  description: ModelDescription;
  /** Input name → config format (FORMAT_NCHW / FORMAT_NHWC), when the config says. */
  formats: Record<string, string | undefined>;
  /** Output name → class labels, for outputs with a label_filename whose file could be read. */
  labels: Record<string, string[]>;
  /** The model directory and config file on this machine, when there is a local copy. */
  modelDir?: string;
  configFile?: string;
  /** The model's config: read from the repository, or from the server's config extension. */
  config?: ModelConfig;
  /** Batch sizes the engine compiled (gears); empty when any size runs or unknown. */
  gears: number[];
  /** Pre-compiles shapes (in process only). */
  compile?(shapes: Record<string, number[]>): Promise<CompileReport>;
  /** Where the model runs, for messages: "in process (cpu engine)" or the server URL. */
  where: string;
  infer(inputs: InferTensor[], outputs: string[]): Promise<InferTensor[]>;
  /** One request on a gRPC stream, every response as it comes (gRPC targets: how a decoupled model answers). */
  stream?(inputs: InferTensor[], outputs: string[], onResponse: (r: StreamedResponse) => void): Promise<void>;
  close(): Promise<void>;
}

export function inputFormats(config: ModelConfig | undefined): Record<string, string | undefined> {
  return Object.fromEntries((config?.input ?? []).map((t) => [t.name, t.format]));
}

/** Reads the label files the config names, relative to the model directory (as Triton does). */
export function readLabels(modelDir: string | undefined, config: ModelConfig | undefined): Record<string, string[]> {
  const labels: Record<string, string[]> = {};
  if (!modelDir) return labels;
  for (const output of config?.output ?? []) {
    if (!output.label_filename) continue;
    try {
      const text = fs.readFileSync(path.join(modelDir, output.label_filename), 'utf8');
      labels[output.name] = text.split(/\r?\n/).filter((line, i, all) => line !== '' || i < all.length - 1);
    } catch {
      // A missing label file is validate's finding; infer still prints the scores.
    }
  }
  return labels;
}
