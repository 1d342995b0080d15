/**
 * The native HTTP front end: a libuv server in the addon owns the public port and answers binary
 * infer requests of published models without JS; everything else it forwards to the node:http
 * front end (HttpFrontend, unchanged, listening on a Unix socket in a private directory as its
 * internal upstream, so no other local user can reach it) and relays the answer byte for byte, so
 * every route and error wording stays in one place.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InferenceService } from '../inference-service.js';
import type { Logger } from '../logger.js';
import type { NativeModel } from '../../executor/executor-addon.js';
import { defaultMaxInflightBodyBytes, inflightBodyMessage, maxConnectionsMessage } from '../limits.js';
import { createNativeHttpServer, type NativeFailureCount, type NativeHttpServer } from './native-http-addon.js';
import { HttpFrontend, type HttpOptions } from './server.js';

/** What GebeServer needs of either front end. */
export interface HttpListener {
  listen(): Promise<number>;
  close(timeoutMs: number): Promise<void>;
  readonly accepted: number;
  readonly answered: number;
  readonly inFlightCount: number;
}

type Publication = [versions: Array<{ version: string; model: NativeModel }>, defaultVersion: string];

export class NativeHttpFrontend implements HttpListener {
  private readonly upstream: HttpFrontend;
  private native?: NativeHttpServer;
  /** What is published, kept so that what was published before listen() reaches the server. */
  private readonly published = new Map<string, Publication>();

  /** The directory (mode 0700) of the upstream's socket, removed at close. */
  private readonly socketDir: string;

  /** Drains the native route's request log into verbose lines (only with verbose logging). */
  private logTimer?: NodeJS.Timeout;

  constructor(service: InferenceService, private readonly options: HttpOptions, private readonly log: Logger) {
    // Same keep-alive timeout as the public side: the Keep-Alive header the upstream writes is
    // relayed to clients as is. An upstream connection closed while idle is reopened on demand.
    // The native server counts connections and bodies; the upstream only sees its relays.
    this.socketDir = mkdtempSync(path.join(os.tmpdir(), 'gebe-http-'));
    this.upstream = new HttpFrontend(service, { ...options, path: path.join(this.socketDir, 'upstream.sock'), maxConnections: undefined }, log);
  }

  async listen(): Promise<number> {
    await this.upstream.listen();
    const upstreamPath = path.join(this.socketDir, 'upstream.sock');
    chmodSync(upstreamPath, 0o600);
    const maxInflight = this.options.maxInflightBodyBytes ?? defaultMaxInflightBodyBytes(this.options.maxBodyBytes);
    const maxConnections = this.options.maxConnections ?? 1 << 30;
    try {
      this.native = createNativeHttpServer({
        host: this.options.host,
        port: this.options.port,
        upstreamPath,
        maxBodyBytes: this.options.maxBodyBytes,
        maxInflightBodyBytes: maxInflight,
        maxConnections,
        busyMessage: inflightBodyMessage(maxInflight),
        fullMessage: maxConnectionsMessage(maxConnections),
        headersTimeoutMs: this.options.headersTimeoutMs,
        requestTimeoutMs: this.options.requestTimeoutMs,
        keepAliveTimeoutMs: this.options.keepAliveTimeoutMs,
      });
      for (const [model, [versions, defaultVersion]] of this.published) this.native.publish(model, versions, defaultVersion);
      const port = this.native.listen();
      if (this.log.verboseEnabled) {
        this.native.enableLog();
        this.logTimer = setInterval(() => this.drainLog(), 200);
        this.logTimer.unref();
      }
      return port;
    } catch (err) {
      this.native = undefined;
      await this.upstream.close(0);
      rmSync(this.socketDir, { recursive: true, force: true });
      throw err;
    }
  }

  get accepted(): number {
    return this.native?.counters().accepted ?? 0;
  }

  get answered(): number {
    return this.native?.counters().answered ?? 0;
  }

  get inFlightCount(): number {
    return this.native?.counters().inFlight ?? 0;
  }

  /** Body bytes the native server holds now (charged to --http-max-inflight-body). */
  get bodyBytes(): number {
    return this.native?.counters().bodyBytes ?? 0;
  }

  /** Requests the native server forwarded to the JS server (the rest it answered itself). */
  get forwarded(): number {
    return this.upstream.accepted;
  }

  /** Replaces what the native infer route may run for `model`; an empty list withdraws it. */
  publish(model: string, versions: Array<{ version: string; model: NativeModel }>, defaultVersion: string): void {
    if (versions.length > 0) this.published.set(model, [versions, defaultVersion]);
    else this.published.delete(model);
    this.native?.publish(model, versions, defaultVersion);
  }

  takeFailures(): NativeFailureCount[] {
    return this.native?.takeFailures() ?? [];
  }

  /** Natively answered requests get the same verbose line as those the JS server answers. */
  private drainLog(): void {
    if (!this.native) return;
    const { requests, dropped } = this.native.takeLog();
    for (const [method, url] of requests) this.log.verbose('http request', { method, url, route: 'native' });
    if (dropped > 0) this.log.verbose('http requests not logged', { count: dropped, route: 'native' });
  }

  /** The native server drains first (its forwarded requests need the upstream), then the upstream. */
  async close(timeoutMs: number): Promise<void> {
    if (!this.closing) this.closing = (async () => {
      // Answers relayed from now on (also those being computed) say Connection: close.
      this.upstream.closeAfterAnswers();
      await this.native?.close(timeoutMs);
      clearInterval(this.logTimer);
      this.drainLog();
      await this.upstream.close(timeoutMs);
      rmSync(this.socketDir, { recursive: true, force: true });
    })();
    return this.closing;
  }

  private closing?: Promise<void>;
}
