/**
 * Decoded binary-extension request headers, remembered by their JSON text. A client sends the same
 * header with every request (same names, shapes and sizes; only the tensor bytes after it change),
 * and parsing and checking it again showed as a tenth of the server's time per request.
 *
 * Only headers whose inputs all travel binary with fixed-size datatypes are kept: their decode
 * depends on the header text and the body length alone, so a remembered header yields exactly what
 * a fresh decode would. Anything else (JSON data, BYTES, another body length) is decoded in full.
 */
import type { Datatype, InferRequest } from '../../executor/types.js';
import type { DecodedHttpInfer, OutputEncoding } from './decoded-http-infer.js';

interface TemplateInput {
  name: string;
  datatype: Datatype;
  shape: number[];
  byteSize: number;
}

interface HeaderTemplate {
  inputs: TemplateInput[];
  /** Bytes of tensor data that follow the header. */
  dataBytes: number;
  id?: string;
  priority?: number;
  timeoutUs?: number;
  sequenceId?: InferRequest['sequenceId'];
  sequenceStart?: boolean;
  sequenceEnd?: boolean;
  /** The request parameters that go to the model (InferRequest.parameters). */
  parameters?: InferRequest['parameters'];
  outputs?: string[];
  encoding: OutputEncoding;
}

/** Longer headers are not kept (a client with huge headers gains little from it). */
const MAX_HEADER_CHARS = 4096;
/** Bounded: clients that put a fresh `id` in every header only empty it now and then. */
const MAX_TEMPLATES = 256;
const templates = new Map<string, HeaderTemplate>();

/** The request for `body` if its header was seen before with the same data size, else undefined. */
export function fromTemplate(headerText: string, body: Buffer, headerLength: number): DecodedHttpInfer | undefined {
  const t = templates.get(headerText);
  if (!t || body.byteLength !== headerLength + t.dataBytes) return undefined;
  let offset = headerLength;
  const inputs = t.inputs.map((i) => {
    const data = body.subarray(offset, offset + i.byteSize);
    offset += i.byteSize;
    return { name: i.name, datatype: i.datatype, shape: i.shape.slice(), data };
  });
  // Same fields in the same order as a fresh decode.
  const request: InferRequest = { inputs };
  if (t.id !== undefined) request.id = t.id;
  if (t.parameters !== undefined) request.parameters = { ...t.parameters };
  if (t.priority !== undefined) request.priority = t.priority;
  if (t.timeoutUs !== undefined) request.timeoutUs = t.timeoutUs;
  if (t.sequenceId !== undefined) request.sequenceId = t.sequenceId;
  if (t.sequenceStart !== undefined) request.sequenceStart = t.sequenceStart;
  if (t.sequenceEnd !== undefined) request.sequenceEnd = t.sequenceEnd;
  if (t.outputs !== undefined) request.outputs = t.outputs.slice();
  return { request, encoding: t.encoding };
}

/**
 * Remembers a header that decoded without error. `allBinary`: every input's data came from the
 * binary part of the body (none from JSON `data`).
 */
export function rememberTemplate(headerText: string, decoded: DecodedHttpInfer, allBinary: boolean): void {
  const { request, encoding } = decoded;
  // Outputs to shared memory are resolved against the regions registered at decode time: never kept.
  if (!allBinary || headerText.length > MAX_HEADER_CHARS || request.inputs.some((i) => i.datatype === 'BYTES') || encoding.shared.size > 0) return;
  if (templates.size >= MAX_TEMPLATES) templates.clear();
  templates.set(headerText, {
    inputs: request.inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape.slice(), byteSize: i.data.byteLength })),
    dataBytes: request.inputs.reduce((n, i) => n + i.data.byteLength, 0),
    id: request.id,
    priority: request.priority,
    timeoutUs: request.timeoutUs,
    sequenceId: request.sequenceId,
    sequenceStart: request.sequenceStart,
    sequenceEnd: request.sequenceEnd,
    parameters: request.parameters && { ...request.parameters },
    outputs: request.outputs?.slice(),
    encoding,
  });
}
