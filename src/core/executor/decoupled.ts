/**
 * Decoupled models (model_transaction_policy { decoupled: true }) send any number of responses
 * for a request, so only a caller that takes several can run them: gRPC ModelStreamInfer. The
 * refusal every other way in gives, written once (Triton's words for its two front ends).
 */
import { InferError } from './types.js';

/** Where a one-response request came in: HTTP infer, gRPC ModelInfer, or gebe itself (in process, an ensemble step, BLS). */
export type SingleResponseEntry = 'HTTP' | 'ModelInfer' | 'gebe';

/** What gebe's own commands say of a decoupled model reached another way (`via`: "HTTP", "in process", ...). */
export function onlyStreamsMessage(model: string, via: string): string {
  return `model '${model}' is decoupled (model_transaction_policy { decoupled: true }): it answers over gRPC ModelStreamInfer only, not ${via}`;
}

export function decoupledRefusal(model: string, entry: SingleResponseEntry): InferError {
  switch (entry) {
    case 'HTTP':
      return new InferError("HTTP end point doesn't support models with decoupled transaction policy", 'UNSUPPORTED');
    case 'ModelInfer':
      return new InferError("ModelInfer RPC doesn't support models with decoupled transaction policy", 'UNSUPPORTED');
    default:
      return new InferError(onlyStreamsMessage(model, 'in process, as an ensemble step or through a BLS exec() without decoupled=True'), 'UNSUPPORTED');
  }
}
