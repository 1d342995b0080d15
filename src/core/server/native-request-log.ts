/**
 * Verbose logging of the requests a native front end answers itself (HTTP infer requests, gRPC
 * ModelInfer/ModelStreamInfer of published models): with --log-verbose the native route notes each
 * one it takes and this drains the notes into the same verbose lines JS writes for the requests it
 * answers, so logging never changes which path serves a request.
 */
import type { Logger } from './logger.js';

/** What both native servers expose for it (native/src/net/taken_log.h). */
export interface TakenRequestSource {
  /** From now on the infer route notes each request it takes (on: true), or stops (on: false). */
  enableLog(on: boolean): void;
  /** The requests noted since the last call ([method, url or gRPC path]), and how many went beyond its cap. */
  takeLog(): { requests: Array<[method: string, target: string]>; dropped: number };
}

/** How often the notes are drained into log lines. */
const DRAIN_INTERVAL_MS = 200;

/**
 * Logs `source`'s requests while the logger is verbose (from the start with --log-verbose, or from
 * when a client turns verbose logging on through the logging extension, until it turns it off).
 * `line` words one request as JS does for its own; `notLogged` is the line for requests beyond the
 * cap. Returns a stop function that logs what is still noted (call it after the server has closed).
 */
export function logNativeRequests(source: TakenRequestSource, log: Logger, line: (method: string, target: string) => void, notLogged: string): () => void {
  let timer: NodeJS.Timeout | undefined;
  const drain = () => {
    const { requests, dropped } = source.takeLog();
    for (const [method, target] of requests) line(method, target);
    if (dropped > 0) log.verbose(notLogged, { count: dropped, route: 'native' });
  };
  const start = () => {
    source.enableLog(true);
    timer = setInterval(drain, DRAIN_INTERVAL_MS);
    timer.unref();
  };
  const stop = () => {
    source.enableLog(false);
    clearInterval(timer);
    timer = undefined;
    source.takeLog(); // noted before the switch: verbose lines are off now
  };
  if (log.verboseEnabled) start();
  const unsubscribe = log.control?.onVerboseChange((on) => (on ? start() : stop()));
  return () => {
    unsubscribe?.();
    if (timer === undefined) return;
    clearInterval(timer);
    drain();
  };
}
