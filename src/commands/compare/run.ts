/**
 * `gebe compare -m <model> --against <target>`: the same samples through the model in process and
 * through the reference; per output msit's metrics, the worst elements and a verdict. Returns the
 * report; the caller turns `pass` into the exit code (0 / 1).
 */
import path from 'node:path';
import { GebeError, UsageError } from '../../errors.js';
import { colors, type IO } from '../../io.js';
import { compareOutput, judgeOutput, type SamplePair, type Thresholds } from '../../core/compare/metrics.js';
import { formatCompareHtml } from '../../core/compare/html.js';
import type { CompareReport, OutputComparison } from '../../core/compare/report.js';
import { formatCompareTable } from '../../core/compare/table.js';
import type { InferTensor } from '../../core/executor/types.js';
import { formatNpy } from '../../core/numpy/npy.js';
import { decodeValues } from '../infer/outputs.js';
import { findLocalModel, openLocalTarget } from '../infer/local-target.js';
import { buildSamples, safeName, type Sample } from './inputs.js';
import type { CompareOptions } from './options.js';
import { openReference, parseAgainst } from './targets.js';
import { writeOutputFile } from '../output-file.js';

export interface CompareDeps {
  io: IO;
  now?: () => Date;
}

export async function runCompare(opts: CompareOptions, deps: CompareDeps): Promise<CompareReport> {
  const { io } = deps;
  const local = findLocalModel(opts.repository, opts.model, opts.modelVersion, io.cwd);
  const against = parseAgainst(opts.against, local.modelDir, io.cwd);
  const model = await openLocalTarget(opts.repository, opts.model, local.version, io.cwd);
  try {
    const description = model.description;
    const samples = buildSamples(description, { inputData: opts.inputData, shapes: opts.shapes, formats: model.formats }, io.cwd);
    const reference = await openReference(against, local, opts.repository, opts.connection);
    const pairs = new Map<string, SamplePair[]>(description.outputs.map((o) => [o.name, []]));
    const problems = new Map<string, string[]>(description.outputs.map((o) => [o.name, []]));
    const referenceTypes = new Map<string, string>();
    try {
      for (const sample of samples) {
        const actual = await model.infer(sample.tensors, description.outputs.map((o) => o.name));
        const expected = await reference.outputs(sample, description.outputs, actual);
        if (opts.dumpDir) dumpSample(opts.dumpDir, sample, actual, expected, against.kind !== 'stored');
        for (const output of description.outputs) {
          const a = actual.find((t) => t.name === output.name);
          const e = expected.find((t) => t.name === output.name);
          if (!a) throw new GebeError(`the model returned no output "${output.name}" for sample "${sample.name}"`);
          if (!e) {
            problems.get(output.name)!.push(`${sample.name}: ${reference.where} returned no output "${output.name}"`);
            continue;
          }
          if (e.datatype !== a.datatype) referenceTypes.set(output.name, e.datatype);
          const count = (shape: number[]) => shape.reduce((x, y) => x * y, 1);
          if (count(a.shape) !== count(e.shape) || (a.shape.join() !== e.shape.join() && against.kind !== 'stored')) {
            problems.get(output.name)!.push(`${sample.name}: shape [${a.shape.join(', ')}] but the reference has [${e.shape.join(', ')}]`);
            continue;
          }
          pairs.get(output.name)!.push({ sample: sample.name, shape: a.shape, actual: values(a), expected: values(e) });
        }
      }
    } finally {
      await reference.close();
    }
    const thresholds: Thresholds = { atol: opts.atol, rtol: opts.rtol, maxOutsideShare: opts.maxOutsideShare, ...(opts.minCosine !== undefined ? { minCosine: opts.minCosine } : {}) };
    const outputs: OutputComparison[] = description.outputs.map((o) => {
      const reasons = [...problems.get(o.name)!];
      const samplePairs = pairs.get(o.name)!;
      const metrics = samplePairs.length > 0 ? compareOutput(samplePairs, thresholds, opts.worst) : undefined;
      if (metrics) reasons.push(...judgeOutput(metrics, thresholds).reasons);
      const refType = referenceTypes.get(o.name);
      return { name: o.name, datatype: o.datatype, ...(refType ? { referenceDatatype: refType } : {}), pass: reasons.length === 0, reasons, ...(metrics ? { metrics } : {}) };
    });
    const report: CompareReport = {
      model: { name: description.name, version: description.version },
      model_target: model.where,
      reference: reference.where,
      samples: samples.map((s) => s.name),
      thresholds,
      pass: outputs.every((o) => o.pass),
      outputs,
    };
    if (opts.reportFile) writeOutputFile(opts.reportFile, formatCompareHtml(report, (deps.now ?? (() => new Date()))()), 'HTML report');
    io.stdout.write(opts.json ? `${JSON.stringify(report, jsonNumbers, 2)}\n` : formatCompareTable(report, colors(io, 'stdout')));
    return report;
  } finally {
    await model.close();
  }
}

function values(tensor: InferTensor): Float64Array {
  if (tensor.datatype === 'BYTES') throw new UsageError(`output "${tensor.name}" is BYTES; gebe compare compares numeric outputs only`);
  return Float64Array.from(decodeValues(tensor), (v) => Number(v));
}

/** JSON has no NaN or Infinity: write them as the strings numpy prints. */
function jsonNumbers(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  return value;
}


/**
 * --dump DIR: input/<input>/<sample>.npy (readable again with --input-data DIR/input),
 * model/<sample>_<i>.npy and reference/<sample>_<i>.npy (usable as --against DIR/model).
 */
function dumpSample(dir: string, sample: Sample, actual: InferTensor[], expected: InferTensor[], withReference: boolean): void {
  const npy = (t: InferTensor) => (t.datatype === 'BYTES' ? undefined : formatNpy({ datatype: t.datatype, shape: t.shape, data: t.data }));
  for (const t of sample.tensors) {
    const bytes = npy(t);
    if (bytes) writeOutputFile(path.join(dir, 'input', safeName(t.name), `${sample.name}.npy`), bytes, 'dump');
  }
  const side = (folder: string, tensors: InferTensor[]) => tensors.forEach((t, i) => {
    const bytes = npy(t);
    if (bytes) writeOutputFile(path.join(dir, folder, `${sample.name}_${i}.npy`), bytes, 'dump');
  });
  side('model', actual);
  if (withReference) side('reference', expected);
}
