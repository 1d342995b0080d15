import type { RemoteConnection } from '../kserve/client/connection.js';
import type { RequestParameters } from '../kserve/client/types.js';

/**
 * A remote target's options: `streaming`, every request on a gRPC ModelStreamInfer stream;
 * `sharedMemory`, tensors in system shared memory (perf_analyzer's --shared-memory system), each
 * output given `outputBytes`; `connection`, TLS and the user's headers (perf_analyzer's --ssl-* and -H);
 * `tensorFormat`, JSON or binary tensors over HTTP; `requestParameters`, parameters every infer
 * request carries (perf_analyzer's --request-parameter).
 */
export interface RemoteOptions {
  streaming?: boolean;
  sharedMemory?: { outputBytes: number };
  connection?: RemoteConnection;
  /** HTTP: how the requests carry their inputs and ask for their outputs (perf_analyzer's --input/--output-tensor-format); binary unless said. */
  tensorFormat?: TensorFormats;
  requestParameters?: RequestParameters;
}

export type TensorFormat = 'binary' | 'json';
export interface TensorFormats {
  input: TensorFormat;
  output: TensorFormat;
}
