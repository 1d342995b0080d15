/** What the JS decode of a KServe v2 HTTP infer request yields: the request and how to answer it. */
import type { InferRequest } from '../../executor/types.js';
import type { SharedOutput } from './shared-memory-params.js';

export interface OutputEncoding {
  /** Requested outputs that must travel binary, by name. */
  binary: Map<string, boolean>;
  /** `binary_data_output` at request level: the default for outputs not listed. */
  binaryByDefault: boolean;
  /** Outputs asked for as classes (the classification extension): name → k. */
  classes: Map<string, number>;
  /** Outputs that go to shared-memory regions (the shared-memory extension), by name. */
  shared: Map<string, SharedOutput>;
}

export interface DecodedHttpInfer {
  request: InferRequest;
  encoding: OutputEncoding;
}
