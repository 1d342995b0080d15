import type { RemoteConnection } from '../kserve/client/connection.js';

/**
 * A remote target's options: `streaming`, every request on a gRPC ModelStreamInfer stream;
 * `sharedMemory`, tensors in system shared memory (perf_analyzer's --shared-memory system), each
 * output given `outputBytes`; `connection`, TLS and the user's headers (perf_analyzer's --ssl-* and -H).
 */
export interface RemoteOptions {
  streaming?: boolean;
  sharedMemory?: { outputBytes: number };
  connection?: RemoteConnection;
}
