/**
 * Decoupled models (model_transaction_policy { decoupled: true }) send any number of responses
 * for a request, so only a caller that takes several can run them (gRPC ModelStreamInfer, HTTP
 * generate_stream, BLS exec(decoupled=True), an ensemble, gebe infer, perf and warmup). The refusal every other way in
 * gives, written once (Triton's words for its two front ends).
 */
import { InferError, type DecoupledResponse, type InferResponse } from './types.js';

/** Where a one-response request came in: HTTP infer, gRPC ModelInfer, or gebe itself (BLS exec() without decoupled=True). */
export type SingleResponseEntry = 'HTTP' | 'ModelInfer' | 'gebe';

/** What gebe says of a decoupled model reached by a caller that takes one response (`caller`: "HTTP infer", ...). */
export function takesOneMessage(model: string, caller: string): string {
  return `model '${model}' is decoupled (model_transaction_policy { decoupled: true }): it sends any number of responses a request, which ${caller} cannot take`;
}

export function decoupledRefusal(model: string, entry: SingleResponseEntry): InferError {
  switch (entry) {
    case 'HTTP':
      return new InferError("HTTP end point doesn't support models with decoupled transaction policy", 'UNSUPPORTED');
    case 'ModelInfer':
      return new InferError("ModelInfer RPC doesn't support models with decoupled transaction policy", 'UNSUPPORTED');
    default:
      return new InferError(takesOneMessage(model, 'a caller that takes one response (a BLS exec() without decoupled=True)'), 'UNSUPPORTED');
  }
}

/**
 * A decoupled request run to its final flag by a caller that takes it as one outcome (gebe warmup,
 * perf in process, HTTP generate): `onEach` sees each response (keeping what it needs: a model may
 * send any number, and none is held here); resolves to how many came. An error response fails it
 * (the first, once the request has ended).
 */
export async function runToFinal(run: (onResponse: (r: DecoupledResponse) => void) => Promise<void>, onEach?: (r: InferResponse) => void): Promise<number> {
  let count = 0;
  let error: Error | undefined;
  await run((r) => {
    if (r.response) {
      count += 1;
      onEach?.(r.response);
    }
    error ??= r.error;
  });
  if (error) throw error;
  return count;
}
