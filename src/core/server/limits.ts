/**
 * The serving limits that both HTTP front ends (the native one and node:https) apply, their defaults
 * and the wording of their answers, in one place: the native server gets the numbers and the
 * messages from here (see NativeHttpFrontend), so the two never disagree.
 */

/** Bodies being received by all connections together default to this, or twice --http-max-body. */
export const DEFAULT_MAX_INFLIGHT_BODY_BYTES = 1024 ** 3;

export function defaultMaxInflightBodyBytes(maxBodyBytes: number): number {
  return Math.max(DEFAULT_MAX_INFLIGHT_BODY_BYTES, 2 * maxBodyBytes);
}

/**
 * Descriptors kept free for model files, the repository walk and metrics, and what one slot of
 * --max-connections costs when both front ends are full: an HTTP connection (its socket) plus a
 * gRPC one (its socket). The limit applies to each front end on its own.
 */
const RESERVED_FDS = 256;
const FDS_PER_CONNECTION = 1 + 1;

/** --max-connections by default: what the open-file limit allows, with room to spare. */
export function defaultMaxConnections(fdLimit: number): number {
  return Math.max(16, Math.floor((fdLimit - RESERVED_FDS) / FDS_PER_CONNECTION));
}

/** A body over --http-max-body, whether its Content-Length says so or its bytes pass it: 413. */
export function bodyTooLargeMessage(limit: number): string {
  return `request body exceeds the limit of ${limit} bytes (raise it with --http-max-body)`;
}

/** Before the parser's reason ("Parse Error: ..." from llhttp, in node and natively alike): 400. */
export const MALFORMED_REQUEST_PREFIX = 'malformed HTTP request: ';

/** Headers, or a whole request, that did not arrive within their timeout: 408. */
export const REQUEST_TIMEOUT_MESSAGE = 'request headers were not received in time';

export function inflightBodyMessage(limit: number): string {
  return `the server is receiving request bodies of ${limit} bytes in total, its limit (--http-max-inflight-body); retry later`;
}

/**
 * Answer bytes one connection may hold while its client does not read them (the parts of a
 * streamed answer, the responses of a gRPC stream): twice --http-max-body. Past it the request is
 * cancelled, so a client that stops reading costs the server a bounded amount however much the
 * model sends. One answer alone always goes out, whatever its size.
 */
export function maxUnsentAnswerBytes(maxBodyBytes: number): number {
  return 2 * maxBodyBytes;
}

/** Whether `adding` bytes more to the `waiting` ones passes the bound (as the native front ends decide it). */
export function passesUnsentBound(waiting: number, adding: number, limit: number): boolean {
  return waiting > 0 && waiting + adding > limit;
}

/** gRPC's status message then (RESOURCE_EXHAUSTED); an HTTP stream, its head sent, just closes. */
export function unsentAnswersMessage(limit: number): string {
  return `the client did not read its responses: they passed ${limit} bytes waiting in the server (twice --http-max-body); the request was cancelled`;
}

export function maxConnectionsMessage(limit: number): string {
  return `the server has ${limit} open connections, its limit (--max-connections); retry later`;
}

/** Every answer the native HTTP server words itself, for its limits as configured. */
export function nativeHttpWording(maxBodyBytes: number, maxInflightBodyBytes: number, maxConnections: number) {
  return {
    busyMessage: inflightBodyMessage(maxInflightBodyBytes),
    tooLargeMessage: bodyTooLargeMessage(maxBodyBytes),
    malformedPrefix: MALFORMED_REQUEST_PREFIX,
    timeoutMessage: REQUEST_TIMEOUT_MESSAGE,
    fullMessage: maxConnectionsMessage(maxConnections),
  };
}

/**
 * At a drain, an idle keep-alive connection stays open this long for a request its client sent
 * just before the signal (answered with Connection: close) before it is closed; gRPC connections
 * take new calls this long before the GOAWAY.
 */
export const DRAIN_IDLE_GRACE_MS = 100;

/** Bytes of request bodies held, shared by every connection of a front end. */
export class BodyBudget {
  used = 0;
  constructor(readonly limit: number) {}

  /** Takes `bytes` more; false (nothing taken) when that would pass the limit. */
  charge(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }
}
