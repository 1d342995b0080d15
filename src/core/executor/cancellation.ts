/**
 * Request cancellation for requests that reach a model through infer(): a front end whose client
 * went away (a gRPC stream reset or a passed grpc-timeout, an HTTP client that disconnected) aborts
 * the request's AbortSignal with one of these errors, and the model drops the request if it still
 * queues it: Python models and ensembles in JS, executor models (an ensemble's steps, any model
 * behind the JS front ends) through the native scheduler, which words it the same (native/src/
 * scheduler/model_scheduler.cc). The native infer routes cancel what they queue themselves
 * (native/src/net/call_cancel.h). A request already running finishes; its answer is dropped by
 * the front end.
 */
import { InferError } from './types.js';

export type CancelCause = 'CANCELLED' | 'DEADLINE_EXCEEDED';

export function cancellationError(cause: CancelCause): InferError {
  return new InferError(cause === 'DEADLINE_EXCEEDED' ? 'Deadline Exceeded' : 'Request was cancelled', cause);
}

/** What a request aborted through `signal` fails with. */
export function abortError(signal: AbortSignal): InferError {
  return signal.reason instanceof InferError ? signal.reason : cancellationError('CANCELLED');
}

/**
 * Calls `onAbort` once when `signal` aborts (at once if it has); returns the function that stops
 * listening, to call when the request leaves the queue.
 */
export function whenAborted(signal: AbortSignal | undefined, onAbort: (err: InferError) => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    onAbort(abortError(signal));
    return () => undefined;
  }
  const listener = (): void => onAbort(abortError(signal));
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
