/**
 * Small adapters over the plain config so rules stay short: tensors with their config paths,
 * the effective backend, element counts, closest-name suggestions and value-replacing fixes.
 */
import type { ConfigPath, Span } from '../config/ast.js';
import type { ModelConfig, ModelTensorConfig } from '../config/model-config.js';
import type { Fix } from '../diagnostic.js';

export interface TensorRef {
  io: 'input' | 'output';
  index: number;
  tensor: ModelTensorConfig;
  path: ConfigPath;
  /** "model input 'x'" — Triton's own way of naming a tensor in its messages. */
  label: string;
}

const tensorCache = new WeakMap<ModelConfig, TensorRef[]>();

/** The config's inputs then outputs with their paths (computed once per config: most rules ask). */
export function tensors(config: ModelConfig, which: 'input' | 'output' | 'both' = 'both'): TensorRef[] {
  let all = tensorCache.get(config);
  if (!all) {
    all = [];
    for (const io of ['input', 'output'] as const) {
      (config[io] ?? []).forEach((tensor, index) => {
        all!.push({ io, index, tensor, path: [io, index], label: `model ${io} '${tensor.name ?? ''}'` });
      });
    }
    tensorCache.set(config, all);
  }
  return which === 'both' ? all : all.filter((t) => t.io === which);
}

const PLATFORM_BACKENDS: Record<string, string> = {
  tensorrt_plan: 'tensorrt',
  tensorflow_graphdef: 'tensorflow',
  tensorflow_savedmodel: 'tensorflow',
  onnxruntime_onnx: 'onnxruntime',
  pytorch_libtorch: 'pytorch',
  ensemble: '',
};
export const KNOWN_PLATFORMS = Object.keys(PLATFORM_BACKENDS);

/** The backend Triton resolves: `backend`, else the one the platform implies. */
export function backendOf(config: ModelConfig): string {
  if (config.backend) return config.backend;
  return PLATFORM_BACKENDS[config.platform ?? ''] ?? '';
}

export function platformBackend(platform: string): string | undefined {
  return PLATFORM_BACKENDS[platform];
}

export function isGe(config: ModelConfig): boolean {
  return config.backend === 'ge';
}

export function isEnsemble(config: ModelConfig): boolean {
  return config.platform === 'ensemble';
}

export function maxBatchSize(config: ModelConfig): number {
  return Number(config.max_batch_size ?? 0);
}

/** Triton's GetElementCount: -1 when any dim is variable, 0 for no dims. */
export function elementCount(dims: number[]): number {
  let count = 0;
  for (const d of dims.map(Number)) {
    if (d === -1) return -1;
    count = count === 0 ? d : count * d;
  }
  return count;
}

export function formatDims(dims: ReadonlyArray<number | string | null>): string {
  return `[${dims.map((d) => (d === null ? '?' : String(d))).join(', ')}]`;
}

export function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The candidate closest to name (case-insensitive edit distance), if reasonably close. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = levenshtein(name.toLowerCase(), c.toLowerCase());
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  if (best === undefined) return undefined;
  return bestScore <= Math.max(2, Math.floor(Math.max(name.length, best.length) / 2)) ? best : undefined;
}

/** A fix replacing the text of one span. */
export function replaceFix(span: Span | undefined, text: string, description: string, safe: boolean): Fix {
  return { description, safe, edits: span ? [{ start: span.start.offset, end: span.end.offset, text }] : [] };
}

/** The value of a string parameter (`parameters { key: "k" value { string_value: "v" } }`). */
export function parameter(config: ModelConfig, key: string): string | undefined {
  return config.parameters?.[key]?.string_value;
}

/**
 * An edit deleting one field (name through value, a trailing separator, and its whole line when
 * nothing else is on it), leaving every other byte as it was.
 */
export function deleteFieldEdit(text: string, nameSpan: Span, valueSpan: Span): { start: number; end: number; text: string } {
  let start = nameSpan.start.offset;
  let end = valueSpan.end.offset;
  while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
  if (text[end] === ',' || text[end] === ';') {
    end++;
    while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
  }
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const onlyOnLine = /^[ \t]*$/.test(text.slice(lineStart, start)) && (end === text.length || text[end] === '\n' || text.startsWith('\r\n', end));
  if (onlyOnLine) {
    start = lineStart;
    end = text.startsWith('\r\n', end) ? end + 2 : Math.min(end + 1, text.length);
  }
  return { start, end, text: '' };
}
