/**
 * One trial = one perf measurement: the model loaded with the candidate's settings (in process, or
 * reloaded on the server through its model-control API),
 * perf's load generator at the candidate's concurrency, perf's stability rule deciding when the
 * figures hold. Nothing here generates load itself.
 */
import type { ModelConfig } from '../config/model-config.js';
import { buildRequests, resolveSampleDims, type InputDataSpec } from '../perf/inputs.js';
import type { LoadModelFn } from '../perf/in-process-target.js';
import { LoadGenerator, type MeasurementOptions } from '../perf/load-generator.js';
import { toRow } from '../perf/report.js';
import { openTarget } from '../perf/targets.js';
import { applyCandidate, candidateKey, type Candidate } from './candidate.js';
import { loadOnServer } from './server-control.js';
import type { RemoteConnection } from '../kserve/client/connection.js';
import type { Trial } from './trial.js';

const notInProcess = async (): Promise<LoadModelFn> => {
  throw new Error('a remote trial loads nothing in process');
};

/** Where trials run: the model loaded in this process, or reloaded on a server per trial. */
export type TrialTarget =
  | { kind: 'in-process'; repository: string; loadModel: LoadModelFn }
  | { kind: 'remote'; url: string; clientThreads: number; config: ModelConfig; connection?: RemoteConnection };

export interface TrialSettings {
  target: TrialTarget;
  model: string;
  version: string;
  batchSize: number;
  shapes: Record<string, number[]>;
  inputData: InputDataSpec;
  measurement: MeasurementOptions;
  /** Sees each trial's load generator (progress on stderr). */
  observe?: (generator: LoadGenerator, candidate: Candidate) => () => void;
}

export async function measureCandidate(candidate: Candidate, s: TrialSettings): Promise<Trial> {
  const key = candidateKey(candidate);
  const failed = (err: unknown): Trial => ({
    key, candidate, throughput: 0, latencyUs: { avg: 0, p50: 0, p90: 0, p95: 0, p99: 0 }, windows: 0,
    error: err instanceof Error ? err.message : String(err),
  });
  const t = s.target;
  let target;
  try {
    if (t.kind === 'remote') {
      await loadOnServer(t.url, s.model, applyCandidate(t.config, candidate), t.connection);
      target = await openTarget({ model: s.model, target: { kind: 'remote', url: t.url, protocol: 'http', connection: t.connection }, clientThreads: t.clientThreads }, { loadModel: notInProcess });
    } else {
      const withCandidate: LoadModelFn = (dir: string, version: string, config: ModelConfig) => t.loadModel(dir, version, applyCandidate(config, candidate));
      target = await openTarget(
        { model: s.model, modelVersion: s.version, target: { kind: 'in-process', repository: t.repository }, clientThreads: 0 },
        { loadModel: async () => withCandidate },
      );
    }
  } catch (err) {
    return failed(err);
  }
  try {
    const model = await target.describe();
    const requests = buildRequests(model, s.batchSize, resolveSampleDims(model, s.shapes), s.inputData);
    const generator = new LoadGenerator(target, s.measurement);
    const stop = s.observe?.(generator, candidate);
    try {
      const [result] = await generator.run({
        batchSizes: [s.batchSize], levels: [candidate.concurrency], kind: 'concurrency', distribution: 'constant', clientThreads: t.kind === 'remote' ? t.clientThreads : 0, requests: () => requests,
      });
      const row = toRow(result!);
      const { avg, p50, p90, p95, p99 } = row.latencyUs;
      return { key, candidate, throughput: row.throughput, latencyUs: { avg, p50, p90, p95, p99 }, windows: row.windows };
    } finally {
      stop?.();
    }
  } catch (err) {
    return failed(err);
  } finally {
    await target.close();
  }
}
