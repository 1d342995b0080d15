/**
 * `gebe infer -m <model>`: one request, in process (the executor, cpu engine here) or against a
 * running server (`-u host:port`, KServe v2 HTTP). Prints the outputs and, for outputs with a
 * label_filename, the top-k classes.
 */
import path from 'node:path';
import { isDecoupled } from '../../core/config/model-config.js';
import { InferError, type InferTensor } from '../../core/executor/index.js';
import { GebeError } from '../../errors.js';
import type { IO } from '../../io.js';
import { colors } from '../../io.js';
import { decoupledOverHttp, openGrpcTarget, openHttpTarget } from './remote-target.js';
import { openLocalTarget } from './local-target.js';
import { buildInferInputs } from './inputs.js';
import type { InferOptions } from './options.js';
import { formatReports, reportOutput, type OutputReport } from './outputs.js';
import type { InferTarget } from './target.js';

export interface InferResult {
  model: string;
  version: string;
  /** The response's outputs; a decoupled model's last response's (empty when it sent none). */
  outputs: OutputReport[];
  /** A decoupled model's responses, in the order they came: outputs, or the error sent in band. */
  responses?: Array<{ outputs: OutputReport[] } | { error: string }>;
}

export async function runInfer(opts: InferOptions, deps: { io: IO }): Promise<InferResult> {
  const { io } = deps;
  const repo = path.resolve(io.cwd, opts.repo);
  const target: InferTarget = !opts.url
    ? await openLocalTarget(repo, opts.model, opts.modelVersion, io.cwd)
    : opts.protocol === 'grpc'
      ? await openGrpcTarget(opts.url, opts.model, opts.modelVersion, repo, opts.connection)
      : await openHttpTarget(opts.url, opts.model, opts.modelVersion, repo, opts.connection);
  try {
    const model = target.description;
    const built = buildInferInputs(model, target.formats, { files: opts.inputs, random: opts.random, shapes: opts.shapes, invert: opts.invert }, io.cwd);
    if (isDecoupled(target.config)) return await streamDecoupled(target, built.tensors, built.notes, opts, io);
    const outputs = await target.infer(built.tensors, model.outputs.map((o) => o.name)).catch((err: unknown) => {
      throw err instanceof InferError ? refusedInProcess(err, opts.random) : err;
    });
    const reports = outputs.map((t) => reportOutput(t, target.labels[t.name], opts.topK, model.maxBatchSize > 0));
    const result: InferResult = { model: model.name, version: model.version, outputs: reports };
    if (opts.json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      const c = colors(io);
      io.stdout.write(`${c.bold(model.name)} v${model.version} ${c.dim(`(${target.where})`)}\n`);
      for (const note of built.notes) io.stdout.write(`${c.dim(`input: ${note}`)}\n`);
      io.stdout.write(formatReports(reports));
      for (const output of target.config?.output ?? []) {
        if (output.label_filename && !target.labels[output.name]) {
          io.stdout.write(c.dim(`(no classes for "${output.name}": its ${output.label_filename} is not readable here${opts.url ? '; pass --model-repository with a local copy of the repository' : ''})\n`));
        }
      }
    }
    return result;
  } finally {
    await target.close();
  }
}

/**
 * A decoupled model answers a request with any number of responses, in process or over gRPC
 * ModelStreamInfer (not HTTP infer, as in Triton): each is printed as it comes; a response the
 * model sent as an error fails the command once the stream ends.
 */
async function streamDecoupled(target: InferTarget, tensors: InferTensor[], notes: string[], opts: InferOptions, io: IO): Promise<InferResult> {
  const model = target.description;
  if (!target.stream) {
    throw decoupledOverHttp(model.name);
  }
  const c = colors(io);
  if (!opts.json) {
    io.stdout.write(`${c.bold(model.name)} v${model.version} ${c.dim(`(${target.where}, streaming)`)}\n`);
    for (const note of notes) io.stdout.write(`${c.dim(`input: ${note}`)}\n`);
  }
  const responses: NonNullable<InferResult['responses']> = [];
  await target.stream(tensors, model.outputs.map((o) => o.name), (r) => {
    const entry = r.error !== undefined ? { error: r.error } : { outputs: r.outputs.map((t) => reportOutput(t, target.labels[t.name], opts.topK, model.maxBatchSize > 0)) };
    responses.push(entry);
    if (opts.json) return;
    io.stdout.write(c.dim(`response ${responses.length}\n`));
    io.stdout.write('error' in entry ? `${c.red(`error: ${entry.error}`)}\n` : formatReports(entry.outputs));
  });
  const last = responses.at(-1);
  const result: InferResult = { model: model.name, version: model.version, outputs: last && 'outputs' in last ? last.outputs : [], responses };
  if (opts.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout.write(c.dim(`${responses.length} response${responses.length === 1 ? '' : 's'}, then the final flag\n`));
  const errors = responses.filter((r) => 'error' in r).length;
  if (errors > 0) throw new GebeError(`${errors} of the ${responses.length} responses of model '${model.name}' were errors`, { hint: 'the model sent them; its log says more' });
  return result;
}

/**
 * The in-process executor refused the request: the model's own checks, or an operator that
 * cannot take the values sent (an index past a table). That is the input's doing, not gebe's, so
 * it is a plain error (a server would answer it as an error too), with a hint for --random.
 */
function refusedInProcess(err: InferError, random: boolean | undefined): GebeError {
  const hint = random
    ? '--random fills inputs with values the model need not take (token ids or positions past its tables); pass real ones with --input'
    : 'check the input values against what the model takes';
  return new GebeError(err.message, { hint, cause: err });
}
