/**
 * The inference calls JS holds for the gRPC front ends, each with an AbortSignal that aborts when
 * the call goes away before JS answers (server/cancellation.ts): the native front end says so for
 * a reset stream, a closed connection or a passed grpc-timeout; grpc-js (TLS) emits 'cancelled'.
 */
import type * as grpc from '@grpc/grpc-js';
import { cancellationError, type CancelCause } from '../../executor/cancellation.js';

interface Held {
  controller: AbortController;
  /** Request messages of the call JS has not answered yet (a stream may have several). */
  messages: number;
}

export interface HeldMessage {
  signal: AbortSignal;
  /** The message is answered: the call is no longer held once all its messages are. */
  release(): void;
}

export class HeldCalls {
  private readonly calls = new Map<string, Held>();

  /** One more message of the call `key` (connection:stream) is with JS. */
  hold(key: string): HeldMessage {
    let held = this.calls.get(key);
    if (!held) {
      held = { controller: new AbortController(), messages: 0 };
      this.calls.set(key, held);
    }
    held.messages += 1;
    const entry = held;
    return {
      signal: entry.controller.signal,
      release: () => {
        entry.messages -= 1;
        if (entry.messages === 0 && this.calls.get(key) === entry) this.calls.delete(key);
      },
    };
  }

  /** The call went away: what it still has queued is dropped. Unknown keys (answered already) are ignored. */
  cancel(key: string, cause: CancelCause): void {
    const held = this.calls.get(key);
    if (!held) return;
    this.calls.delete(key);
    held.controller.abort(cancellationError(cause));
  }

  /** Calls held now (for tests). */
  get size(): number {
    return this.calls.size;
  }
}

/**
 * A grpc-js server call's signal: aborted when its client cancels it, which clients also do when
 * the call's deadline passes (then the cause is DEADLINE_EXCEEDED).
 */
export function tlsCallSignal(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>): AbortSignal {
  const controller = new AbortController();
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  const cause = (): CancelCause => (Number.isFinite(at) && Date.now() >= at ? 'DEADLINE_EXCEEDED' : 'CANCELLED');
  call.once('cancelled', () => controller.abort(cancellationError(cause())));
  return controller.signal;
}
