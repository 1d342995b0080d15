/**
 * BLS (business logic scripting): a model.py's `pb_utils.InferenceRequest(...).exec()` runs another
 * model of the same server. The stub names the request's tensors in the shared arena; they go to
 * the target's own infer() (so its scheduler and batching apply) as views of the arena, and the
 * answer is written back after them. A request sent from a thread model.py started carries its
 * tensors inline (`inline`), and so do its answers: the arena is execute()'s. Everything the stub
 * names is checked before use.
 */
import { isDatatype } from '../kserve/datatypes.js';
import type { InferRequest, InferResponse, InferTensor, LoadedModel } from '../executor/types.js';
import { MAX_CONTROL_MESSAGE_BYTES, NO_SERVER_HERE } from './control-channel.js';
import { parseParameters } from './parameters.js';
import { inlineBytes, toInline } from './inline-tensors.js';
import { latestVersion, type ModelLookup } from '../server/model-lookup.js';
import type { ControlMessage } from './control-channel.js';
import { align, type SharedArena } from './shared-arena.js';
import { heldTracedRequest } from './traced-requests.js';
import { traceJsStep } from '../executor/trace-addon.js';


const MAX_TENSORS = 1024;
const MAX_RANK = 64;

export function runBls(message: ControlMessage, arena: SharedArena, lookup: ModelLookup | undefined, caller: string, send: (reply: ControlMessage) => void): Promise<void> {
  if (message.op === 'bls_fetch') return Promise.resolve(fetchHeld(message, arena, caller, send));
  if (message.decoupled === true || message.inline === true) return runInlineBls(message, arena, lookup, caller, send, message.decoupled === true);
  if (message.deferred === true) return runDeferred(message, arena, lookup, caller, send);
  return runOneResponse(message, arena, lookup, caller).then(send);
}

/**
 * The model a BLS request names, the request to run on it, and `traced`, which takes the run's
 * promise: a request built with trace=request.trace() of a traced request is traced as its child
 * until the run settles (natively on an executor model).
 */
function blsTarget(message: ControlMessage, arena: SharedArena, lookup: ModelLookup | undefined):
  { request: BlsRequest; target: LoadedModel; infer: InferRequest; traced: <T>(run: Promise<T>) => Promise<T> } {
  if (!lookup) throw new Error(`BLS requests need a server's models: ${NO_SERVER_HERE}`);
  const request = blsRequest(message, arena);
  const target = lookup.resolve(request.model, request.version);
  const infer: InferRequest = { id: request.id, inputs: request.inputs, outputs: request.outputs.length > 0 ? request.outputs : undefined, ...blsRequestOptions(message) };
  const parent = heldTracedRequest(message.trace);
  if (parent) infer.parentTrace = parent;
  const end = traceJsStep(target, infer);
  return { request, target, infer, traced: (run) => (end?.(run), run) };
}

/** A BLS request's failure as model.py sees it (Triton's words). */
function blsFailure(caller: string, err: unknown): string {
  return `BLS request from '${caller}' failed: ${(err as Error).message}`;
}

async function runOneResponse(message: ControlMessage, arena: SharedArena, lookup: ModelLookup | undefined, caller: string): Promise<ControlMessage> {
  try {
    const { request, target, infer, traced } = blsTarget(message, arena, lookup);
    return writeOutputs(await traced(target.infer(infer)), request.model, message.out_offset, arena);
  } catch (err) {
    return { op: 'bls_result', error: blsFailure(caller, err) };
  }
}

/** The `bls_result` reply of `response`, its outputs written into the arena from `outOffset` on. */
function writeOutputs(response: InferResponse, model: string, outOffset: unknown, arena: SharedArena): ControlMessage {
  let offset = Number(outOffset);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error('BLS request has no valid out_offset');
  const outputs = response.outputs.map((t) => {
    offset = align(offset);
    arena.reserve(offset, t.data.byteLength, `BLS output '${t.name}' of model '${model}'`);
    arena.write(offset, t.data);
    const desc = { name: t.name, datatype: t.datatype, shape: t.shape, offset, size: t.data.byteLength };
    offset += t.data.byteLength;
    return desc;
  });
  return { op: 'bls_result', outputs, free_offset: align(offset), shm_size: arena.size, ...replyParameters(response) };
}

/** The bytes `writeOutputs` takes for `response` from an aligned offset. */
function outputBytes(response: InferResponse): number {
  return response.outputs.reduce((end, t) => align(end) + t.data.byteLength, 0);
}

/**
 * Deferred BLS requests (several of an execute() coroutine's in flight at once) whose responses
 * wait for the stub to say where their outputs go: per stub process (its arena), by bls_id. The
 * stub reserves the room when it reads `bls_ready` and answers `bls_fetch`; it allocates all the
 * shared memory itself, so two requests' tensors never overlap. Small answers skip this: they come
 * inline in their `bls_result`.
 */
const heldResponses = new WeakMap<SharedArena, Map<unknown, { model: string; response: InferResponse }>>();
/** Responses one stub may leave unfetched: each is a finished inference's outputs held in memory. */
const MAX_HELD_RESPONSES = 1024;
/** Deferred answers up to this size travel in their message (base64) instead of the shared memory. */
const INLINE_ANSWER_BYTES = 64 << 10;

async function runDeferred(message: ControlMessage, arena: SharedArena, lookup: ModelLookup | undefined, caller: string, send: (reply: ControlMessage) => void): Promise<void> {
  const reply = (fields: Omit<ControlMessage, 'op'> & { op: string }): void => send({ ...fields, bls_id: message.bls_id });
  try {
    const held = heldResponses.get(arena) ?? new Map<unknown, { model: string; response: InferResponse }>();
    heldResponses.set(arena, held);
    const { request, target, infer, traced } = blsTarget(message, arena, lookup);
    const response = await traced(target.infer(infer));
    const size = outputBytes(response);
    // A small answer comes at once in the message: the round trip of a fetch costs more than its copy.
    if (size <= INLINE_ANSWER_BYTES) return reply({ op: 'bls_result', inline: true, outputs: response.outputs.map(toInline), ...replyParameters(response) });
    if (held.size >= MAX_HELD_RESPONSES) throw new Error(`model.py left ${MAX_HELD_RESPONSES} BLS responses unread`);
    held.set(message.bls_id, { model: request.model, response });
    reply({ op: 'bls_ready', size });
  } catch (err) {
    reply({ op: 'bls_result', error: blsFailure(caller, err) });
  }
}

function fetchHeld(message: ControlMessage, arena: SharedArena, caller: string, send: (reply: ControlMessage) => void): void {
  const held = heldResponses.get(arena);
  const entry = held?.get(message.bls_id);
  held?.delete(message.bls_id);
  if (message.drop === true) return;
  try {
    if (!entry) throw new Error(`no BLS response ${String(message.bls_id).slice(0, 20)} is waiting to be fetched`);
    arena.ensure(Number(message.shm_size));
    send({ ...writeOutputs(entry.response, entry.model, message.out_offset, arena), bls_id: message.bls_id });
  } catch (err) {
    send({ op: 'bls_result', bls_id: message.bls_id, error: blsFailure(caller, err) });
  }
}

/**
 * Answers as `bls_response` messages with their outputs inline (the stub keeps writing other
 * requests into the arena meanwhile, or the request came from a thread): exec(decoupled=True)
 * (`stream`) gets each response of the target, the last marked final, and a target that is not
 * decoupled answers one final response; exec() from a thread gets the target's one response (a
 * decoupled target is refused by its infer(), as from execute()). A failure ends it with its error.
 */
async function runInlineBls(message: ControlMessage, arena: SharedArena, lookup: ModelLookup | undefined, caller: string, send: (reply: ControlMessage) => void, stream: boolean): Promise<void> {
  const reply = (fields: ControlMessage | Omit<ControlMessage, 'op'>): void => send({ ...fields, op: 'bls_response', bls_id: message.bls_id });
  let ended = false;
  const respond = (r: { response?: InferResponse; error?: Error; final: boolean }): void => {
    if (ended) return;
    ended = r.final;
    if (r.error) return reply({ error: blsFailure(caller, r.error), final: r.final });
    const outputs = (r.response?.outputs ?? []).map(toInline);
    const size = outputs.reduce((n, t) => n + t.data.length, 0);
    if (size > MAX_CONTROL_MESSAGE_BYTES) {
      return reply({ error: blsFailure(caller, new Error(`a response of ${size} bytes (its outputs in base64) exceeds the limit of ${MAX_CONTROL_MESSAGE_BYTES} bytes for one decoupled BLS response`)), final: r.final });
    }
    reply({ outputs, final: r.final, ...replyParameters(r.response) });
  };
  try {
    const { target, infer, traced } = blsTarget(message, arena, lookup);
    // The inputs are copied: the stub reuses the arena while the target may still read them.
    if (message.inline !== true) infer.inputs = infer.inputs.map((t) => ({ ...t, data: t.data.slice() }));
    if (stream && target.decoupled && target.inferDecoupled) await traced(target.inferDecoupled(infer, respond));
    else respond({ response: await traced(target.infer(infer)), final: true });
  } catch (err) {
    respond({ error: err instanceof Error ? err : new Error(String(err)), final: true });
  }
}

/** The target's response parameters, as model.py's response.parameters() gives them (JSON text). */
function replyParameters(response: InferResponse | undefined): { parameters?: string } {
  return response?.parameters ? { parameters: JSON.stringify(response.parameters) } : {};
}

interface BlsRequest {
  model: string;
  version?: string;
  id?: string;
  inputs: InferTensor[];
  outputs: string[];
}

function blsRequest(m: ControlMessage, arena: SharedArena): BlsRequest {
  if (typeof m.model_name !== 'string' || m.model_name === '') throw new Error('pb_utils.InferenceRequest needs a model_name');
  const version = Number(m.model_version ?? -1);
  if (!Number.isSafeInteger(version) || (version < 1 && version !== -1)) throw new Error(`model_version ${String(m.model_version)} is not -1 (latest) or a version number`);
  const rawInputs = Array.isArray(m.inputs) ? (m.inputs as Array<Record<string, unknown>>) : [];
  const outputs = Array.isArray(m.outputs) ? m.outputs : [];
  if (rawInputs.length > MAX_TENSORS || outputs.length > MAX_TENSORS) throw new Error(`a BLS request names more than ${MAX_TENSORS} tensors`);
  const inline = m.inline === true;
  if (!inline) arena.ensure(Number(m.shm_size));
  const inputs = rawInputs.map((d) => {
    const name = typeof d?.name === 'string' ? d.name : '';
    const shape = d?.shape;
    const data = inline ? (typeof d?.data === 'string' ? inlineBytes(d.data) : undefined) : arena.view(d?.offset, d?.size);
    if (!isDatatype(d?.datatype)) throw new Error(`BLS input '${name.slice(0, 200)}' has no Triton datatype (${String(d?.datatype).slice(0, 40)})`);
    if (!Array.isArray(shape) || shape.length > MAX_RANK || !shape.every((x) => Number.isSafeInteger(x) && x >= 0)) {
      throw new Error(`BLS input '${name.slice(0, 200)}' has an invalid shape`);
    }
    if (!data) throw new Error(`BLS input '${name.slice(0, 200)}' ${inline ? 'has no base64 data' : 'lies outside the shared memory'}`);
    return { name, datatype: d.datatype as InferTensor['datatype'], shape: shape as number[], data };
  });
  if (!outputs.every((o) => typeof o === 'string')) throw new Error('requested_output_names must be strings');
  return { model: m.model_name, version: latestVersion(version), id: typeof m.request_id === 'string' && m.request_id !== '' ? m.request_id : undefined, inputs, outputs: outputs as string[] };
}

/** Triton's request flags a BLS request may carry (pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_*). */
const FLAG_SEQUENCE_START = 1;
const FLAG_SEQUENCE_END = 2;
const MAX_U64 = (1n << 64n) - 1n;

/**
 * What a BLS request carries beside its tensors, as Triton's do: a sequence's id and START/END
 * flags (the stub sends the id as gebe keys sequences: "u:7", "s:abc"; 0 and "" mean none), the
 * timeout in µs, the parameters (a JSON object of strings, numbers and booleans). The target
 * checks them as it checks a client's.
 */
function blsRequestOptions(m: ControlMessage): Pick<InferRequest, 'sequenceId' | 'sequenceStart' | 'sequenceEnd' | 'timeoutUs' | 'parameters'> {
  const out: Pick<InferRequest, 'sequenceId' | 'sequenceStart' | 'sequenceEnd' | 'timeoutUs' | 'parameters'> = {};
  const id = m.correlation_id;
  if (typeof id === 'string' && /^u:\d{1,20}$/.test(id)) {
    const value = BigInt(id.slice(2));
    if (value > MAX_U64) throw new Error(`correlation_id ${id.slice(2)} does not fit in 64 bits`);
    if (value !== 0n) out.sequenceId = value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  } else if (typeof id === 'string' && id.startsWith('s:')) {
    if (id.length > 2) out.sequenceId = id.slice(2);
  } else if (id !== undefined) {
    throw new Error('the BLS request\'s correlation_id is not an unsigned 64-bit integer or a string');
  }
  const flags = m.flags ?? 0;
  if (!Number.isSafeInteger(flags) || (flags as number) < 0 || (flags as number) > (FLAG_SEQUENCE_START | FLAG_SEQUENCE_END)) {
    throw new Error(`flags ${String(flags).slice(0, 40)} are not a combination of TRITONSERVER_REQUEST_FLAG_SEQUENCE_START (1) and TRITONSERVER_REQUEST_FLAG_SEQUENCE_END (2)`);
  }
  if ((flags as number) & FLAG_SEQUENCE_START) out.sequenceStart = true;
  if ((flags as number) & FLAG_SEQUENCE_END) out.sequenceEnd = true;
  const timeout = m.timeout ?? 0;
  if (!Number.isSafeInteger(timeout) || (timeout as number) < 0) throw new Error(`timeout ${String(timeout).slice(0, 40)} is not a number of microseconds`);
  if ((timeout as number) > 0) out.timeoutUs = timeout as number;
  if (m.parameters !== undefined) out.parameters = parseParameters(m.parameters, 'the BLS request\'s parameters');
  return out;
}
