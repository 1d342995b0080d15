/**
 * perf_analyzer's --profile-export-file: every measured request's timestamps, by experiment, in
 * perf_analyzer's JSON layout (what GenAI-Perf and other tools read):
 *
 *   {"experiments": [{"experiment": {"mode": "concurrency", "value": 4, "batch_size": 1},
 *                     "requests": [{"timestamp": ns, "sequence_id": n, "request_inputs": {},
 *                                   "response_timestamps": [ns, ...], "response_outputs": [{}, ...]}],
 *                     "window_boundaries": [ns, ...]}],
 *    "version": "...", "service_kind": "triton", "endpoint": ""}
 *
 * Timestamps are nanoseconds since the Unix epoch, in whole microseconds. An experiment is one
 * setting (batch size and load level: gebe sweeps batch sizes too, so `batch_size` is added to
 * perf_analyzer's mode and value); its requests are those of every window measured for it, its
 * window boundaries each window's start and end (a window that starts where the last ended adds its
 * end only). The tensors are not kept: `request_inputs` is `{}` and `response_outputs` holds one
 * `{}` per response. Requests are kept up to PROFILE_EXPORT_MAX_TIMESTAMPS timestamps for the run.
 */
import { open } from 'node:fs/promises';
import type { LoadGenerator, Setting, WindowRequests } from './load-generator.js';

/** The run's bound on kept timestamps (a request's start and each response): about 150 MB of them in memory. */
export const PROFILE_EXPORT_MAX_TIMESTAMPS = 10_000_000;

/** perf_analyzer's service_kind of the target: a KServe server, or the model in this process (its C API mode). */
export type ServiceKind = 'triton' | 'triton_c_api';

interface Experiment {
  setting: Setting;
  windowBoundariesMs: number[];
  windows: WindowRequests[];
}

/** Nanoseconds since the epoch as JSON digits, from ms (whole µs: a double holds no finer at today's dates). */
const epochNs = (ms: number): string => `${Math.round(ms * 1000)}000`;

export class ProfileExport {
  private readonly experiments: Experiment[] = [];
  private dropped = 0;

  /** Collects the windows' requests as the generator measures them. */
  attach(generator: LoadGenerator): void {
    generator.on('window', ({ setting, requests }) => {
      if (requests) this.add(setting, requests);
    });
  }

  /** Requests measured but not kept (the bound was reached). */
  droppedRequests(): number {
    return this.dropped;
  }

  /** Requests kept. */
  keptRequests(): number {
    return this.experiments.reduce((n, e) => n + e.windows.reduce((m, w) => m + w.logs.reduce((k, l) => k + l.starts.length, 0), 0), 0);
  }

  private add(setting: Setting, requests: WindowRequests): void {
    let experiment = this.experiments.find((e) => sameSetting(e.setting, setting));
    if (!experiment) {
      experiment = { setting, windowBoundariesMs: [], windows: [] };
      this.experiments.push(experiment);
    }
    const bounds = experiment.windowBoundariesMs;
    if (bounds[bounds.length - 1] !== requests.startMs) bounds.push(requests.startMs);
    bounds.push(requests.endMs);
    experiment.windows.push(requests);
    for (const log of requests.logs) this.dropped += log.dropped;
  }

  /** Writes the file in pieces (a long run's requests make hundreds of MB of JSON). */
  async write(file: string, meta: { version: string; serviceKind: ServiceKind }): Promise<void> {
    const handle = await open(file, 'w');
    try {
      let pending: string[] = [];
      let pendingLength = 0;
      const out = async (text: string) => {
        pending.push(text);
        pendingLength += text.length;
        if (pendingLength >= 1 << 20) await flush();
      };
      const flush = async () => {
        await handle.write(pending.join(''));
        pending = [];
        pendingLength = 0;
      };
      await out('{"experiments":[');
      for (const [i, e] of this.experiments.entries()) {
        await out(`${i > 0 ? ',' : ''}{"experiment":${JSON.stringify(experimentId(e.setting))},"requests":[`);
        let first = true;
        for (const window of e.windows) {
          for (const log of window.logs) {
            let response = 0;
            for (let r = 0; r < log.starts.length; r++) {
              const count = log.responseCounts[r]!;
              const times: string[] = [];
              for (let k = 0; k < count; k++) times.push(epochNs(log.responses[response + k]!));
              response += count;
              const sequence = log.sequenceIds[r]! !== 0 ? `,"sequence_id":${log.sequenceIds[r]}` : '';
              await out(`${first ? '' : ','}{"timestamp":${epochNs(log.starts[r]!)}${sequence},"request_inputs":{},` +
                `"response_timestamps":[${times.join(',')}],"response_outputs":[${Array(count).fill('{}').join(',')}]}`);
              first = false;
            }
          }
        }
        await out(`],"window_boundaries":[${e.windowBoundariesMs.map(epochNs).join(',')}]}`);
      }
      await out(`],"version":${JSON.stringify(meta.version)},"service_kind":${JSON.stringify(meta.serviceKind)},"endpoint":""}\n`);
      await flush();
    } finally {
      await handle.close();
    }
  }
}

function sameSetting(a: Setting, b: Setting): boolean {
  return a.batchSize === b.batchSize && a.concurrency === b.concurrency && a.requestRate === b.requestRate;
}

/** perf_analyzer's experiment object, with the batch size gebe sweeps. */
function experimentId(s: Setting): { mode: 'concurrency' | 'request_rate'; value: number; batch_size: number } {
  return s.concurrency !== undefined
    ? { mode: 'concurrency', value: s.concurrency, batch_size: s.batchSize }
    : { mode: 'request_rate', value: s.requestRate!, batch_size: s.batchSize };
}
