import type { RequestHeaders } from '../kserve/client/request-headers.js';

/**
 * A remote target's options: `streaming`, every request on a gRPC ModelStreamInfer stream;
 * `sharedMemory`, tensors in system shared memory (perf_analyzer's --shared-memory system), each
 * output given `outputBytes`; `headers`, added to every request (perf_analyzer's -H).
 */
export interface RemoteOptions {
  streaming?: boolean;
  sharedMemory?: { outputBytes: number };
  headers?: RequestHeaders;
}
