/**
 * Compares one model with its baseline and reports breaking changes. Findings point at the new
 * config (the field that changed, or the nearest one written) and quote the old value with its
 * place in the baseline, so a reviewer sees both sides without checking out the base branch.
 */
import path from 'node:path';
import type { ConfigPath, ParseResult, Span } from '../../config/ast.js';
import type { ModelConfig, ModelTensorConfig } from '../../config/model-config.js';
import type { ScanFileSystem } from '../../repository/fs.js';
import type { ModelEntry } from '../../repository/types.js';
import { selectVersions } from '../../repository/versions.js';
import { gearsOf } from '../ge-options.js';
import { formatDims, isEnsemble, isGe, maxBatchSize } from '../helpers.js';
import type { BreakingRuleId } from './rules.js';

/** One side of the comparison: a parsed config, and its model directory when there is one. */
export interface ModelSide {
  parse: ParseResult;
  text: string;
  /** The config's absolute path. */
  path: string;
  model?: ModelEntry;
  fs: ScanFileSystem;
}

export interface BreakingReport {
  ruleId: BreakingRuleId;
  /** Where in the new config. */
  at: ConfigPath;
  message: string;
  hint: string;
}

export interface CompareContext {
  /** Names a baseline file with a line: "main:repo/m/config.pbtxt:7". */
  oldLabel(absPath: string, line: number): string;
}

const MAX_QUOTE = 80;

/** The old value as written, with where it was: `TYPE_FP32` (main:repo/m/config.pbtxt:5). */
function quote(side: ModelSide, at: ConfigPath, ctx: CompareContext, fallback: string): string {
  const span: Span | undefined = side.parse.locate(at);
  if (!span) return `${fallback} (${ctx.oldLabel(side.path, 1)}, by default)`;
  let text = side.text.slice(span.start.offset, span.end.offset).replace(/\s+/g, ' ').trim();
  if (text.length > MAX_QUOTE) text = `${text.slice(0, MAX_QUOTE - 1)}…`;
  return `\`${text}\` (${ctx.oldLabel(side.path, span.start.line)})`;
}

function tensorsOf(config: ModelConfig, io: 'input' | 'output'): Map<string, { tensor: ModelTensorConfig; index: number }> {
  const out = new Map<string, { tensor: ModelTensorConfig; index: number }>();
  (config[io] ?? []).forEach((tensor, index) => {
    if (tensor.name !== undefined && !out.has(tensor.name)) out.set(tensor.name, { tensor, index });
  });
  return out;
}

const sameShape = (a: ModelTensorConfig, b: ModelTensorConfig) => a.data_type === b.data_type && formatDims(a.dims ?? []) === formatDims(b.dims ?? []);

/** Why new dims break clients of old dims, or undefined. Inputs may widen (fixed → -1); outputs may narrow. */
export function dimsBreak(io: 'input' | 'output', oldDims: number[], newDims: number[]): string | undefined {
  if (oldDims.length !== newDims.length) return `rank changed from ${oldDims.length} to ${newDims.length}`;
  for (let i = 0; i < oldDims.length; i++) {
    const o = Number(oldDims[i]);
    const n = Number(newDims[i]);
    if (o === n) continue;
    if (o !== -1 && n !== -1) return `dim ${i} changed from ${o} to ${n}`;
    if (io === 'input' && o === -1) return `variable dim ${i} made fixed (${n}): clients sending other sizes fail`;
    if (io === 'output' && n === -1) return `fixed dim ${i} (${o}) made variable: clients expecting ${o} get other sizes`;
  }
  return undefined;
}

function compareTensors(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext, out: BreakingReport[]): void {
  const ensemble = isEnsemble(oldSide.parse.config) || isEnsemble(newSide.parse.config);
  for (const io of ['input', 'output'] as const) {
    const before = tensorsOf(oldSide.parse.config, io);
    const after = tensorsOf(newSide.parse.config, io);
    const added = [...after.values()].filter((t) => !before.has(t.tensor.name));
    // A rename is reported once, as the removal (with the new name suggested).
    const renames = new Set<string>();
    for (const [name, old] of before) {
      const now = after.get(name);
      const oldAt: ConfigPath = [io, old.index];
      if (!now) {
        const renamed = added.find((t) => !renames.has(t.tensor.name) && sameShape(t.tensor, old.tensor));
        if (renamed) renames.add(renamed.tensor.name);
        out.push({
          ruleId: ensemble ? 'BREAKING_ENSEMBLE_INTERFACE' : 'BREAKING_TENSOR_REMOVED',
          at: renamed ? [io, renamed.index, 'name'] : [io],
          message: `model ${io} '${name}' was removed${renamed ? ` (renamed to '${renamed.tensor.name}'?)` : ''}; it was ${quote(oldSide, [...oldAt, 'name'], ctx, name)}`,
          hint: `keep ${io} '${name}', or release the change as a new model name so existing clients keep working`,
        });
        continue;
      }
      const newAt: ConfigPath = [io, now.index];
      if (old.tensor.data_type !== now.tensor.data_type) {
        out.push({
          ruleId: ensemble ? 'BREAKING_ENSEMBLE_INTERFACE' : 'BREAKING_DATATYPE_CHANGED',
          at: [...newAt, 'data_type'],
          message: `model ${io} '${name}' data_type changed from ${old.tensor.data_type} to ${now.tensor.data_type}; it was ${quote(oldSide, [...oldAt, 'data_type'], ctx, String(old.tensor.data_type))}`,
          hint: `keep data_type ${old.tensor.data_type}, or add a new ${io} and deprecate '${name}'`,
        });
      }
      const why = dimsBreak(io, old.tensor.dims ?? [], now.tensor.dims ?? []);
      if (why) {
        out.push({
          ruleId: ensemble ? 'BREAKING_ENSEMBLE_INTERFACE' : 'BREAKING_DIMS_CHANGED',
          at: [...newAt, 'dims'],
          message: `model ${io} '${name}' dims ${formatDims(old.tensor.dims ?? [])} → ${formatDims(now.tensor.dims ?? [])}: ${why}; it was ${quote(oldSide, [...oldAt, 'dims'], ctx, formatDims(old.tensor.dims ?? []))}`,
          hint: `keep dims ${formatDims(old.tensor.dims ?? [])} (or make the changed dims -1 for inputs), or add a new ${io}`,
        });
      }
      if (io === 'input' && old.tensor.optional === true && now.tensor.optional !== true) {
        out.push({
          ruleId: 'BREAKING_INPUT_REQUIRED',
          at: [...newAt, 'name'],
          message: `model input '${name}' was optional and is now required; it was ${quote(oldSide, [...oldAt, 'optional'], ctx, 'optional: true')}`,
          hint: 'keep optional: true, since existing clients may not send the input',
        });
      }
    }
    if (io === 'input') {
      for (const t of added) {
        if (t.tensor.optional === true || renames.has(t.tensor.name)) continue;
        out.push({
          ruleId: ensemble ? 'BREAKING_ENSEMBLE_INTERFACE' : 'BREAKING_INPUT_REQUIRED',
          at: ['input', t.index, 'name'],
          message: `model input '${t.tensor.name}' is new and required: requests from existing clients lack it (the baseline ${oldLabelOf(oldSide, ctx)} has no such input)`,
          hint: 'mark it optional: true, or release the change as a new model name',
        });
      }
    }
  }
}

const oldLabelOf = (side: ModelSide, ctx: CompareContext) => ctx.oldLabel(side.path, 1);

function compareBatching(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext, out: BreakingReport[]): void {
  const before = maxBatchSize(oldSide.parse.config);
  const after = maxBatchSize(newSide.parse.config);
  if (before === after || after > before && before > 0) return;
  const was = quote(oldSide, ['max_batch_size'], ctx, `max_batch_size: ${before}`);
  const message = before > 0 && after === 0
    ? `batching was turned off (max_batch_size ${before} → 0): batched requests fail and every tensor loses its leading batch dimension; it was ${was}`
    : before === 0
      ? `batching was turned on (max_batch_size 0 → ${after}): every tensor gains a leading batch dimension, so existing requests have the wrong rank; it was ${was}`
      : `max_batch_size was lowered from ${before} to ${after}: requests with a batch of ${after + 1} to ${before} now fail; it was ${was}`;
  out.push({ ruleId: 'BREAKING_MAX_BATCH_SIZE', at: ['max_batch_size'], message, hint: `keep max_batch_size ${before}` });
}

function compareGears(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext, out: BreakingReport[]): void {
  if (!isGe(oldSide.parse.config) || !isGe(newSide.parse.config)) return;
  const before = gearsOf(oldSide.parse.config);
  const after = gearsOf(newSide.parse.config);
  if (!before || !after) return;
  const kept = new Set(after.gears.map((g) => g.join(',')));
  const removed = before.gears.map((g) => g.join(',')).filter((g) => !kept.has(g));
  if (removed.length === 0) return;
  const at: ConfigPath = ['parameters', 'graph.ge.dynamicDims', 'string_value'];
  out.push({
    ruleId: 'BREAKING_GEAR_REMOVED',
    at,
    message: `gear${removed.length === 1 ? '' : 's'} ${removed.map((g) => `"${g}"`).join(', ')} of graph.ge.dynamicDims ${removed.length === 1 ? 'was' : 'were'} removed: requests of ${removed.length === 1 ? 'that shape' : 'those shapes'} have no compiled graph; it was ${quote(oldSide, at, ctx, 'graph.ge.dynamicDims')}`,
    hint: 'keep the gears, or add them back to graph.ge.dynamicDims',
  });
}

/** Label files hold one line per class: beyond this the file is not one (and is not compared). */
const MAX_LABEL_FILE_BYTES = 16 * 1024 * 1024;

/** Reads a label file of a model directory (one label per line), or undefined. */
function readLabels(side: ModelSide, file: string): string[] | undefined {
  if (!side.model || !side.model.files.includes(file)) return undefined;
  try {
    if (side.fs.stat(path.join(side.model.dir, file)).size > MAX_LABEL_FILE_BYTES) return undefined;
    const lines = side.fs.readFile(path.join(side.model.dir, file)).toString('utf8').split('\n').map((l) => l.replace(/\r$/, ''));
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  } catch {
    return undefined;
  }
}

function compareLabels(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext, out: BreakingReport[]): void {
  const after = tensorsOf(newSide.parse.config, 'output');
  for (const [name, old] of tensorsOf(oldSide.parse.config, 'output')) {
    const now = after.get(name);
    const oldFile = old.tensor.label_filename;
    if (!now || !oldFile) continue;
    const at: ConfigPath = ['output', now.index, 'label_filename'];
    const was = quote(oldSide, ['output', old.index, 'label_filename'], ctx, oldFile);
    if (!now.tensor.label_filename) {
      out.push({ ruleId: 'BREAKING_LABELS_CHANGED', at: ['output', now.index, 'name'], message: `model output '${name}' lost its label_filename: classification requests no longer get labels; it was ${was}`, hint: `keep label_filename: "${oldFile}"` });
      continue;
    }
    const before = readLabels(oldSide, oldFile);
    const labels = readLabels(newSide, now.tensor.label_filename);
    if (!before || !labels) continue; // a missing file is LABEL_FILE_MISSING's finding
    const index = before.findIndex((label, i) => labels[i] !== label);
    if (index < 0) continue;
    const now_ = labels[index];
    out.push({
      ruleId: 'BREAKING_LABELS_CHANGED',
      at,
      message: `label ${index} of model output '${name}' was "${before[index]}" and is now ${now_ === undefined ? 'missing' : `"${now_}"`} (${now.tensor.label_filename} line ${index + 1}): clients that map class indexes to labels get the wrong class; the baseline file is ${ctx.oldLabel(path.join(oldSide.model!.dir, oldFile), index + 1)}`,
      hint: 'keep every existing label on its line and append new labels at the end',
    });
  }
}

interface Control {
  name: string;
  key: string;
}

function controls(config: ModelConfig): Control[] | undefined {
  const seq = config.sequence_batching as { control_input?: Array<{ name?: string; control?: unknown[] }> } | undefined;
  if (seq === undefined) return undefined;
  return (seq.control_input ?? []).map((c) => ({ name: c.name ?? '', key: JSON.stringify(c.control ?? []) }));
}

function compareSequence(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext, out: BreakingReport[]): void {
  const before = controls(oldSide.parse.config);
  const after = controls(newSide.parse.config);
  if (before === undefined && after === undefined) return;
  const report = (at: ConfigPath, message: string, hint: string) => out.push({ ruleId: 'BREAKING_SEQUENCE_CONTROL_CHANGED', at, message, hint });
  if (before === undefined) {
    report(['sequence_batching'], `sequence_batching was added: requests must now carry sequence ids and start/end flags, which existing clients do not send (the baseline ${oldLabelOf(oldSide, ctx)} has none)`, 'release a sequence model under a new name');
    return;
  }
  if (after === undefined) {
    report([], `sequence_batching was removed: sequence clients lose their per-sequence state and routing; it was ${quote(oldSide, ['sequence_batching'], ctx, 'sequence_batching')}`, 'keep sequence_batching, or release the change under a new model name');
    return;
  }
  before.forEach((c, i) => {
    const j = after.findIndex((a) => a.name === c.name);
    const was = quote(oldSide, ['sequence_batching', 'control_input', i], ctx, c.name);
    if (j < 0) report(['sequence_batching', 'control_input'], `sequence control input '${c.name}' was removed or renamed; it was ${was}`, `keep control input '${c.name}'`);
    else if (after[j]!.key !== c.key) report(['sequence_batching', 'control_input', j], `sequence control input '${c.name}' changed its controls (kind, data type or values); it was ${was}`, 'keep the control kind, data type and false/true values clients send');
  });
  after.forEach((c, j) => {
    if (!before.some((b) => b.name === c.name)) report(['sequence_batching', 'control_input', j], `sequence control input '${c.name}' was added: existing clients do not send it (the baseline ${oldLabelOf(oldSide, ctx)} has no such control)`, 'add controls only with a new model name');
  });
}

function compareVersions(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext, out: BreakingReport[]): void {
  if (!oldSide.model || !newSide.model) return;
  const before = selectVersions(oldSide.parse.config, oldSide.model.versions);
  const after = selectVersions(newSide.parse.config, newSide.model.versions);
  const served = new Set(after.selected.map((v) => v.version));
  const lost = before.selected.filter((v) => !served.has(v.version)).map((v) => v.version);
  if (lost.length === 0) return;
  // Under "latest N", older versions roll off when newer ones arrive: the normal release flow.
  const oldestServed = Math.min(...after.selected.map((v) => v.version));
  const rolledForward = after.kind === 'latest' && before.kind === 'latest' && after.selected.length >= before.selected.length && lost.every((v) => v < oldestServed);
  if (rolledForward) return;
  const policy = newSide.parse.locate(['version_policy']) ? ['version_policy'] : [];
  out.push({
    ruleId: 'BREAKING_VERSION_REMOVED',
    at: policy,
    message: `version${lost.length === 1 ? '' : 's'} ${lost.join(', ')} of model '${newSide.model.name}' ${lost.length === 1 ? 'is' : 'are'} no longer served (baseline served ${before.selected.map((v) => v.version).join(', ')} under version_policy ${before.kind}; now ${after.selected.map((v) => v.version).join(', ') || 'none'}): clients that pin ${lost.length === 1 ? 'it' : 'them'} fail; see ${ctx.oldLabel(oldSide.path, 1)}`,
    hint: 'keep the version directories, or widen version_policy (e.g. specific { versions: [...] }) to keep serving them',
  });
}

export function compareModel(oldSide: ModelSide, newSide: ModelSide, ctx: CompareContext): BreakingReport[] {
  const out: BreakingReport[] = [];
  compareVersions(oldSide, newSide, ctx, out);
  compareBatching(oldSide, newSide, ctx, out);
  compareTensors(oldSide, newSide, ctx, out);
  compareGears(oldSide, newSide, ctx, out);
  compareLabels(oldSide, newSide, ctx, out);
  compareSequence(oldSide, newSide, ctx, out);
  return out;
}

/** The interface of a model, to suggest a rename when one model disappears and another appears. */
export function interfaceKey(config: ModelConfig): string {
  const t = (io: 'input' | 'output') => (config[io] ?? []).map((x) => `${x.name}:${x.data_type}:${formatDims(x.dims ?? [])}`).join(';');
  return `${maxBatchSize(config)}|${t('input')}|${t('output')}`;
}
