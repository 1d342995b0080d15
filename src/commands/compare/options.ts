/** Flag parsing for `gebe compare`. */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { parseShapes } from '../../core/perf/ranges.js';
import { parseConnection, type ConnectionFlags } from '../connection-option.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';

export interface CompareOptions {
  model: string;
  repository: string;
  modelVersion?: string;
  against: string;
  /** TLS and -H headers for an --against server. */
  connection?: RemoteConnection;
  inputData: string;
  shapes: Record<string, number[]>;
  atol: number;
  rtol: number;
  /** Share (0..1) of elements allowed outside atol/rtol. */
  maxOutsideShare: number;
  minCosine?: number;
  worst: number;
  dumpDir?: string;
  reportFile?: string;
  json: boolean;
}

export interface CompareFlags extends ConnectionFlags {
  model?: string;
  modelRepository?: string;
  modelVersion?: string;
  against?: string;
  inputData?: string;
  shape?: string[];
  atol?: string;
  rtol?: string;
  maxOutside?: string;
  minCosine?: string;
  worst?: string;
  dump?: string;
  report?: string;
  json?: boolean;
}

function number(flag: string, text: string | undefined, fallback: number, min: number, max = Infinity, integer = false): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new UsageError(`${flag} "${text}" is not ${integer ? 'a whole number' : 'a number'} ${max === Infinity ? `of at least ${min}` : `between ${min} and ${max}`}; e.g. ${flag} ${fallback}`);
  }
  return v;
}

export function parseCompareFlags(flags: CompareFlags, cwd: string): CompareOptions {
  if (!flags.model) throw new UsageError('-m/--model is required', 'e.g. gebe compare -m mnist --against 1/model.om');
  if (!flags.against) {
    throw new UsageError('--against is required: what to compare the model with', 'a model file (--against 1/model.om), a server (--against http://host:8000 or grpc://host:8001), or a directory of stored outputs');
  }
  if (flags.modelVersion !== undefined && !/^[1-9]\d*$/.test(flags.modelVersion)) {
    throw new UsageError(`--model-version must be a version number such as 1, got "${flags.modelVersion}"`);
  }
  const maxOutsidePct = number('--max-outside', flags.maxOutside?.replace(/%$/, ''), 0, 0, 100);
  const server = /^(https?|grpc):\/\//i.test(flags.against) ? flags.against : undefined;
  const connection = parseConnection(flags, server, /^grpc:/i.test(flags.against) ? 'grpc' : 'http', '--against http://host:port or grpc://host:port');
  return {
    model: flags.model,
    repository: path.resolve(cwd, flags.modelRepository ?? 'model_repository'),
    ...(flags.modelVersion !== undefined ? { modelVersion: flags.modelVersion } : {}),
    against: flags.against,
    ...(connection ? { connection } : {}),
    inputData: flags.inputData ?? 'random',
    shapes: parseShapes(flags.shape ?? []),
    atol: number('--atol', flags.atol, 1e-5, 0),
    rtol: number('--rtol', flags.rtol, 1e-3, 0),
    maxOutsideShare: maxOutsidePct / 100,
    ...(flags.minCosine !== undefined ? { minCosine: number('--min-cosine', flags.minCosine, 0.999, -1, 1) } : {}),
    worst: number('--worst', flags.worst, 5, 0, 1000, true),
    ...(flags.dump !== undefined ? { dumpDir: path.resolve(cwd, flags.dump) } : {}),
    ...(flags.report !== undefined ? { reportFile: path.resolve(cwd, flags.report) } : {}),
    json: Boolean(flags.json),
  };
}
