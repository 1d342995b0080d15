/**
 * Inspects an ONNX file on disk without reading its weights: a protobuf wire reader over a small
 * window of the file, whose skips (initializer data, attribute tensors) move the position without
 * reading. Memory stays at the window size whatever the model's size.
 */
import fs from 'node:fs';
import { inspectModelProto, OnnxParseError, type OnnxModelInfo, type WireReader } from './onnx.js';

const WINDOW = 64 * 1024;
/** One window shared by all readers (reads are synchronous): a scan of 1,000 models allocates it once. */
let sharedWindow = Buffer.allocUnsafe(WINDOW);

/** A protobuf wire reader over a file. Readers share one window: use one at a time. */
export class FileWireReader implements WireReader {
  pos = 0;
  /** Bytes actually read from the file (skipped weights are not read). */
  bytesRead = 0;
  private buf = sharedWindow;
  private bufStart = 0;
  private bufLen = 0;

  constructor(private readonly fd: number, readonly len: number) {}

  /** Makes bytes [pos, pos + n) available in the window. */
  private ensure(n: number): void {
    if (this.pos + n > this.len) throw new OnnxParseError(`unexpected end of file at byte ${this.len} (the file is truncated)`);
    if (this.pos >= this.bufStart && this.pos + n <= this.bufStart + this.bufLen) return;
    if (n > this.buf.length) this.buf = sharedWindow = Buffer.allocUnsafe(n);
    const want = Math.min(this.buf.length, this.len - this.pos);
    let got = 0;
    while (got < want) {
      const r = fs.readSync(this.fd, this.buf, got, want - got, this.pos + got);
      if (r === 0) break;
      got += r;
    }
    this.bytesRead += got;
    this.bufStart = this.pos;
    this.bufLen = got;
    if (got < n) throw new OnnxParseError(`unexpected end of file at byte ${this.pos + got} (the file shrank while being read)`);
  }

  private byte(): number {
    this.ensure(1);
    return this.buf[this.pos++ - this.bufStart]!;
  }

  /** A varint as a JS number (exact up to 2^53) and whether it needed the 64-bit sign. */
  private varint(): number | bigint {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      if (i === 9 || (i >= 7 && result + (b & 0x7f) * scale > Number.MAX_SAFE_INTEGER)) {
        // Rare: a value beyond 2^53 or a negative int64 (ten bytes); finish in BigInt.
        let big = BigInt(result) + BigInt(b & 0x7f) * BigInt(scale);
        let shift = BigInt(7 * (i + 1));
        let more = b & 0x80;
        while (more) {
          const next = this.byte();
          big += BigInt(next & 0x7f) << shift;
          shift += 7n;
          more = next & 0x80;
          if (shift > 70n) throw new OnnxParseError('a varint longer than 10 bytes');
        }
        return BigInt.asIntN(64, big);
      }
      result += (b & 0x7f) * scale;
      if (!(b & 0x80)) return result;
      scale *= 128;
    }
    throw new OnnxParseError('a varint longer than 10 bytes');
  }

  uint32(): number {
    const v = this.varint();
    return typeof v === 'bigint' ? Number(BigInt.asUintN(32, v)) : v % 2 ** 32;
  }

  int32(): number {
    const v = this.varint();
    return typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v | 0;
  }

  int64(): number | { toString(): string } {
    const v = this.varint();
    return typeof v === 'bigint' ? v : v;
  }

  string(): string {
    const n = this.uint32();
    this.ensure(n);
    const start = this.pos - this.bufStart;
    this.pos += n;
    return this.buf.toString('utf8', start, start + n);
  }

  skipType(wire: number): this {
    switch (wire) {
      case 0:
        this.varint();
        break;
      case 1:
        this.pos += 8;
        break;
      case 2: {
        const length = this.uint32(); // read before touching pos: `pos += uint32()` would use the old pos
        this.pos += length;
        break;
      }
      case 3:
        for (let w = this.uint32() & 7; w !== 4; w = this.uint32() & 7) this.skipType(w);
        break;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new OnnxParseError(`invalid wire type ${wire} at byte ${this.pos}`);
    }
    if (this.pos > this.len) throw new OnnxParseError(`a field runs past the end of the file (byte ${this.pos} of ${this.len})`);
    return this;
  }
}

/** Inspects an ONNX file, reading only the bytes around the graph's structure. */
export function inspectOnnxFile(file: string): OnnxModelInfo {
  // O_NONBLOCK: a FIFO named model.onnx must not hang validation waiting for a writer.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new OnnxParseError('it is not a regular file');
    return inspectModelProto(new FileWireReader(fd, stat.size));
  } finally {
    fs.closeSync(fd);
  }
}
