/** Flag parsing for `gebe warmup`. */
import { UsageError } from '../../errors.js';
import { parseProtocol, type RemoteProtocol } from '../protocol-option.js';
import { parseConnection, type ConnectionFlags } from '../connection-option.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';

export interface WarmupOptions {
  repo: string;
  model?: string;
  url?: string;
  protocol: RemoteProtocol;
  /** TLS and -H headers for the server. */
  connection?: RemoteConnection;
  write: boolean;
  runs: number;
  json: boolean;
}

export interface RawWarmupOptions extends ConnectionFlags {
  modelRepository?: string;
  model?: string;
  url?: string;
  protocol?: string;
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
  const connection = parseConnection(raw, raw.url, protocol);
  return { repo: repo ?? 'model_repository', model: raw.model, url: raw.url, protocol, ...(connection ? { connection } : {}), write: raw.write ?? false, runs, json: raw.json ?? false };
}
