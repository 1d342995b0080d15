/**
 * Verbose logging of the requests a native front end answers itself (HTTP infer requests, gRPC
 * ModelInfer/ModelStreamInfer of published models): with --log-verbose the native route notes each
 * one it takes and this drains the notes into the same verbose lines JS writes for the requests it
 * answers, so logging never changes which path serves a request.
 */
import type { Logger } from './logger.js';

/** What both native servers expose for it (native/src/net/taken_log.h). */
export interface TakenRequestSource {
  /** From now on the infer route notes each request it takes. */
  enableLog(): void;
  /** The requests noted since the last call ([method, url or gRPC path]), and how many went beyond its cap. */
  takeLog(): { requests: Array<[method: string, target: string]>; dropped: number };
}

/** How often the notes are drained into log lines. */
const DRAIN_INTERVAL_MS = 200;

/**
 * Starts logging `source`'s requests when the logger is verbose (else does nothing). `line` words
 * one request as JS does for its own; `notLogged` is the line for requests beyond the cap. Returns
 * a stop function that logs what is still noted (call it after the server has closed).
 */
export function logNativeRequests(source: TakenRequestSource, log: Logger, line: (method: string, target: string) => void, notLogged: string): () => void {
  if (!log.verboseEnabled) return () => undefined;
  source.enableLog();
  const drain = () => {
    const { requests, dropped } = source.takeLog();
    for (const [method, target] of requests) line(method, target);
    if (dropped > 0) log.verbose(notLogged, { count: dropped, route: 'native' });
  };
  const timer = setInterval(drain, DRAIN_INTERVAL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    drain();
  };
}
