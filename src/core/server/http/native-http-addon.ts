/** The native HTTP front end part of the addon, typed (see native/src/http/). */
import type { PublishedVersion } from './publish-models.js';
import { loadNativeAddon, nativeModule } from '../../executor/native.js';
import type { TakenRequestSource } from '../native-request-log.js';
import type { NativeRequestTrace } from '../../executor/types.js';

/** How an answer's body goes out (native/src/http/fast_path.h's BodyPart). */
export const BodyPart = { Whole: 0, First: 1, Next: 2, Last: 3 } as const;
export type BodyPart = (typeof BodyPart)[keyof typeof BodyPart];

export interface NativeHttpServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  maxInflightBodyBytes?: number;
  maxConnections?: number;
  /** A streamed answer whose client leaves more than this unread is cut off (the connection closes). */
  maxUnsentBytes?: number;
  /** The 503 answers' wording for those two limits (from ../limits.ts). */
  busyMessage: string;
  /** The 413 answer's text for a body over maxBodyBytes. */
  tooLargeMessage: string;
  /** The 400 answer's text for an unparsable request starts with this, then the parser's reason. */
  malformedPrefix: string;
  /** The 408 answer's text. */
  timeoutMessage: string;
  fullMessage: string;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  maxHeaderBytes?: number;
  /** After each request and answer the loop polls this long (µs) before it sleeps; 0 or left out: never. */
  busyPollUs?: number;
  /** Loop threads listening on the port (SO_REUSEPORT), each with its own connections; 1-64, left out: 1. */
  threads?: number;
}

/** Failures of the native infer route since the last call, for nv_inference_request_failure. */
export interface NativeFailureCount {
  model: string;
  version: string;
  reason: 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';
  count: number;
}

export interface NativeHttpServer extends TakenRequestSource {
  /** Binds and starts the server's own thread; the port. Throws an Error with `code` (EADDRINUSE, ...). */
  listen(): number;
  /** Graceful close; resolves once the server's thread has ended. */
  close(timeoutMs: number): Promise<void>;
  /** handedOff: requests given to the JS handler; acceptedByLoop: accepted by each loop thread, in loop order. */
  counters(): { accepted: number; answered: number; inFlight: number; bodyBytes: number; handedOff: number; acceptedByLoop: number[] };
  /** Answers the request `token` handed to the JS handler (false: unknown or answered already). */
  /** `part` streams an answer (native fast_path.h's BodyPart): First with the head, then Next, then Last; whole without it. */
  /** `trace`: the trace of the request JS answers (the trace extension), whose send the connection times. */
  answer(token: number, status: number, headerLines: string, body: Buffer, close: boolean, part?: BodyPart, trace?: NativeRequestTrace): boolean;
  /** What the native infer route may run for `model` (an empty list withdraws it). */
  publish(model: string, versions: PublishedVersion[], defaultVersion: string): void;
  takeFailures(): NativeFailureCount[];
}

/**
 * Called on the JS thread for each request the native server does not answer itself; `headers` is
 * [lower-cased name, value, ...] in arrival order. It must call answer(token, ...) once.
 */
/**
 * One request for JS, answered through answer(token, ...); or, with the token alone, word that the
 * connection of a request JS holds went away (reset, or failed) before its answer. `received`,
 * while tracing: when its first byte came and when it was complete (steady-clock ns).
 */
export type NativeRequestHandler = (token: number, method?: string, url?: string, headers?: string[], body?: Buffer, http10?: boolean,
  received?: [bigint, bigint]) => void;

interface NativeHttpModule {
  NativeHttpServer: new (options: NativeHttpServerOptions, handler: NativeRequestHandler) => NativeHttpServer;
  raiseFdLimit(): number;
}

/**
 * Raises the soft open-file limit to the hard one and returns the limit now in force; without the
 * addon's HTTP part, the limit cannot be read and a conservative 1024 is assumed.
 */
export function raiseFdLimit(): number {
  try {
    const http = loadNativeAddon().http as NativeHttpModule | undefined;
    return http ? http.raiseFdLimit() : 1024;
  } catch {
    return 1024;
  }
}

export function createNativeHttpServer(options: NativeHttpServerOptions, handler: NativeRequestHandler): NativeHttpServer {
  const http = nativeModule<NativeHttpModule>('http', 'the HTTP front end', 'serve with --http-frontend node');
  return new http.NativeHttpServer(options, handler);
}
