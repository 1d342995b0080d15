/** Messages between the load generator and its worker-thread drivers. */
import type { LoadPlan } from './driver.js';
import type { RemoteConnection } from '../kserve/client/connection.js';
import type { RequestLogData } from './request-log.js';

/** How a worker builds its own client: the transport and the prebuilt requests to cycle through. */
export type WorkerInit =
  | { transport: 'http'; baseUrl: string; inferPath: string; bodies: Array<{ body: Uint8Array; headerLength: number }>; connection?: RemoteConnection }
  | { transport: 'grpc'; address: string; requests: Uint8Array[]; streaming: boolean; connection?: RemoteConnection };

export type WorkerRequest =
  | { type: 'start'; plan: LoadPlan }
  | { type: 'snapshot'; id: number }
  | { type: 'stop'; id: number };

export interface EncodedWindow {
  histogram: string;
  latencySumUs: number;
  requests: number;
  timedRequests: number;
  sendUsSum: number;
  recvUsSum: number;
  loopBusy: number;
  log?: RequestLogData;
}

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'progress'; completed: number }
  | { type: 'error'; message: string; userCaused: boolean }
  | { type: 'window'; id: number; window: EncodedWindow }
  | { type: 'stopped'; id: number };
