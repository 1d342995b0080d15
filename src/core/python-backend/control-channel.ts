/**
 * The control pipe to a Python stub: length-prefixed (4-byte little-endian) JSON messages. Only
 * small messages travel here (names, shapes, offsets, errors); tensor bytes live in shared memory.
 * A message from Python larger than the bound ends the channel instead of growing a buffer.
 */
import type { Readable, Writable } from 'node:stream';

/** The largest control message accepted from a stub (tensor metadata of one execute, errors). */
export const MAX_CONTROL_MESSAGE_BYTES = 4 << 20;
/**
 * The most of gebe's messages a stub may leave unread (its reader thread takes them as they come):
 * beyond it the stub has stopped reading (stopped, or hung in code that holds Python's lock) and is
 * ended, rather than gebe holding what it keeps sending it (a decoupled BLS stream's responses).
 */
export const MAX_UNREAD_CONTROL_BYTES = 16 * MAX_CONTROL_MESSAGE_BYTES;

export type ControlMessage = Record<string, unknown> & { op: string };

export class ControlChannel {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set at the first protocol error: bytes still in flight from the stub must not be read as messages. */
  private broken = false;

  constructor(
    private readonly output: Writable,
    private readonly input: Readable,
    private readonly onMessage: (message: ControlMessage) => void,
    private readonly onProtocolError: (reason: string) => void,
    /** The stub's end closed: it ended, or model.py closed file descriptor 4. */
    onEnd: () => void,
  ) {
    input.on('data', (chunk: Buffer) => this.receive(chunk));
    input.on('end', () => onEnd());
    // An EPIPE after the process died is reported by its exit, not here.
    output.on('error', () => undefined);
  }

  /**
   * Stops (true) or resumes reading the stub's messages. Held, the pipe fills and the stub's next
   * send blocks: backpressure for a model whose responses the server cannot take yet.
   */
  hold(on: boolean): void {
    if (on) this.input.pause();
    else this.input.resume();
  }

  send(message: ControlMessage): void {
    if (this.broken) return;
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32LE(body.byteLength, 0);
    this.output.write(Buffer.concat([header, body]));
    if (this.output.writableLength > MAX_UNREAD_CONTROL_BYTES) {
      this.fail(`it left ${this.output.writableLength} bytes of gebe's messages unread, more than the ${MAX_UNREAD_CONTROL_BYTES} it may`);
    }
  }

  private receive(chunk: Buffer): void {
    if (this.broken) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    while (this.pendingBytes >= 4) {
      const head = this.peek(4);
      const length = head.readUInt32LE(0);
      if (length > MAX_CONTROL_MESSAGE_BYTES) {
        this.fail(`a control message of ${length} bytes exceeds the limit of ${MAX_CONTROL_MESSAGE_BYTES}`);
        return;
      }
      if (this.pendingBytes < 4 + length) return;
      const frame = this.take(4 + length).subarray(4);
      let message: unknown;
      try {
        message = JSON.parse(frame.toString('utf8'));
      } catch {
        this.fail('a control message is not valid JSON');
        return;
      }
      if (!message || typeof message !== 'object' || typeof (message as ControlMessage).op !== 'string') {
        this.fail('a control message has no "op"');
        return;
      }
      this.onMessage(message as ControlMessage);
    }
  }

  private fail(reason: string): void {
    this.broken = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.onProtocolError(reason);
  }

  private peek(n: number): Buffer {
    if (this.pending[0]!.byteLength < n) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const frame = all.subarray(0, n);
    const rest = all.subarray(n);
    this.pending = rest.byteLength > 0 ? [rest] : [];
    this.pendingBytes = rest.byteLength;
    return frame;
  }
}

/** Why model.py cannot reach the server's models (BLS, the model loading API) from where it runs. */
export const NO_SERVER_HERE = 'none is reachable here (outside `gebe serve`, or from auto_complete_config(), which runs before the server\'s models are)';
