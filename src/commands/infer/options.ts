/** Flag parsing for `gebe infer`. */
import { UsageError } from '../../errors.js';
import { parseProtocol, type RemoteProtocol } from '../protocol-option.js';
import { parseConnection, type ConnectionFlags } from '../connection-option.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';
import { DEFAULT_REPOSITORY } from '../repository-option.js';
import type { InvertMode } from './image-input.js';

export interface InferOptions {
  model: string;
  repo: string;
  modelVersion?: string;
  url?: string;
  protocol: RemoteProtocol;
  /** TLS and -H headers for the server. */
  connection?: RemoteConnection;
  inputs: string[];
  random: boolean;
  shapes: Record<string, number[]>;
  topK: number;
  invert: InvertMode;
  json: boolean;
}

export interface RawInferOptions extends ConnectionFlags {
  model?: string;
  modelRepository?: string;
  /** Deprecated spelling of modelRepository (see commands/repository-option.ts). */
  repo?: string;
  modelVersion?: string;
  url?: string;
  protocol?: string;
  input?: string[];
  random?: boolean;
  shape?: string[];
  topK?: string;
  invert?: string;
  json?: boolean;
}

export function parseInferOptions(raw: RawInferOptions): InferOptions {
  if (!raw.model) throw new UsageError('gebe infer needs -m <model>', 'for example: gebe infer -m mnist_classifier --input digit.png');
  if (raw.modelVersion !== undefined && !/^[1-9]\d*$/.test(raw.modelVersion)) {
    throw new UsageError(`--model-version must be a version number such as 1, got "${raw.modelVersion}"`);
  }
  const topK = raw.topK === undefined ? 3 : Number(raw.topK);
  if (!Number.isInteger(topK) || topK < 1) throw new UsageError(`--top-k must be a positive integer, got "${raw.topK}"`);
  const invert = (raw.invert ?? 'auto') as InvertMode;
  if (!['auto', 'yes', 'no'].includes(invert)) throw new UsageError(`--invert must be auto, yes or no, got "${raw.invert}"`);
  const protocol = parseProtocol(raw.protocol, raw.url);
  return {
    model: raw.model,
    repo: raw.modelRepository ?? DEFAULT_REPOSITORY,
    modelVersion: raw.modelVersion,
    url: raw.url,
    protocol,
    connection: parseConnection(raw, raw.url, protocol),
    inputs: raw.input ?? [],
    random: raw.random ?? false,
    shapes: parseShapes(raw.shape ?? []),
    topK,
    invert,
    json: raw.json ?? false,
  };
}

/** `name:1,28,28` (repeatable) → { name: [1, 28, 28] }, as perf's --shape. */
export function parseShapes(values: string[]): Record<string, number[]> {
  const shapes: Record<string, number[]> = {};
  for (const value of values) {
    const colon = value.lastIndexOf(':');
    const dims = value.slice(colon + 1).split(',').map((d) => Number(d));
    if (colon <= 0 || dims.some((d) => !Number.isInteger(d) || d < 1)) {
      throw new UsageError(`--shape ${value}: expected <input>:<d1>,<d2>,... with positive sizes (without the batch dimension)`);
    }
    shapes[value.slice(0, colon)] = dims;
  }
  return shapes;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
