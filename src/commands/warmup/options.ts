/** Flag parsing for `gebe warmup`. */
import { UsageError } from '../../errors.js';
import { parseProtocol, type RemoteProtocol } from '../protocol-option.js';
import { parseHeaders } from '../header-option.js';
import type { RequestHeaders } from '../../core/kserve/client/request-headers.js';

export interface WarmupOptions {
  repo: string;
  model?: string;
  url?: string;
  protocol: RemoteProtocol;
  /** -H: added to every request to the server. */
  headers?: RequestHeaders;
  write: boolean;
  runs: number;
  json: boolean;
}

export interface RawWarmupOptions {
  modelRepository?: string;
  model?: string;
  url?: string;
  protocol?: string;
  header?: string[];
  write?: boolean;
  runs?: string;
  json?: boolean;
}

export function parseWarmupOptions(repo: string | undefined, raw: RawWarmupOptions): WarmupOptions {
  const runs = raw.runs === undefined ? 10 : Number(raw.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--runs must be a positive integer, got "${raw.runs}"`);
  if (raw.url !== undefined && raw.model === undefined) {
    throw new UsageError('-u needs -m <model>: say which model on the server to warm', 'for example: gebe warmup -u localhost:8000 -m mnist_classifier');
  }
  const protocol = parseProtocol(raw.protocol, raw.url);
  const headers = parseHeaders(raw.header, raw.url, protocol);
  return { repo: repo ?? 'model_repository', model: raw.model, url: raw.url, protocol, ...(headers ? { headers } : {}), write: raw.write ?? false, runs, json: raw.json ?? false };
}
