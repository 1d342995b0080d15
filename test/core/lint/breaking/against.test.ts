/**
 * `gebe validate --against` over real git history made here: commit a baseline, change it,
 * commit, validate against HEAD~1. One case per BREAKING_* rule (the finding points at the new
 * file and quotes the old value), the no-change and additions-only cases, the other baseline
 * kinds (directory, tarball), --against-rule, suppressions, --changed and every format.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toValidateOptions, type ValidateFlags } from '../../../../src/commands/validate/options.js';
import { runValidate } from '../../../../src/commands/validate/run.js';
import { BREAKING_RULES } from '../../../../src/core/lint/breaking/rules.js';
import { memoryIO } from '../../../../src/io.js';
import { makeHistory, type History } from './git-history.js';

interface Finding { ruleId: string; severity: string; file: string; line: number; message: string }

const histories: History[] = [];
afterEach(() => {
  for (const h of histories.splice(0)) fs.rmSync(h.dir, { recursive: true, force: true });
});

function history(): History {
  const h = makeHistory();
  histories.push(h);
  return h;
}

async function validate(h: History, flags: ValidateFlags, paths = ['mr']): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO({ cwd: h.dir });
  const code = await runValidate(toValidateOptions(paths, flags), io);
  return { code, out: io.out(), err: io.err() };
}

async function breaking(h: History, flags: ValidateFlags = {}): Promise<{ code: number; findings: Finding[]; all: Finding[] }> {
  const { code, out } = await validate(h, { format: 'json', against: 'HEAD~1', ...flags });
  const all = (JSON.parse(out) as { diagnostics: Finding[] }).diagnostics;
  return { code, findings: all.filter((d) => d.ruleId.startsWith('BREAKING_')), all };
}

/** Changes the repository, commits, and returns the breaking findings against the commit before. */
async function change(apply: (h: History) => void): Promise<{ h: History; code: number; findings: Finding[] }> {
  const h = history();
  apply(h);
  h.commit('change');
  const { code, findings } = await breaking(h);
  return { h, code, findings };
}

const lineOf = (h: History, rel: string, text: string) => h.read(rel).split('\n').findIndex((l) => l.includes(text)) + 1;

describe('validate --against <git ref>: one case per rule', () => {
  it('BREAKING_MODEL_REMOVED: a model removed, and a rename suggested', async () => {
    const { code, findings } = await change((h) => {
      h.write('seq2/config.pbtxt', h.read('seq/config.pbtxt').replace('name: "seq"', 'name: "seq2"'));
      fs.cpSync(h.file('seq/1'), h.file('seq2/1'), { recursive: true });
      h.remove('seq');
    });
    expect(code).toBe(1);
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_MODEL_REMOVED']);
    expect(findings[0]!.file).toBe(path.join('mr', 'seq2', 'config.pbtxt'));
    expect(findings[0]!.message).toContain("model 'seq' was removed (renamed to 'seq2'?");
    expect(findings[0]!.message).toContain('HEAD~1:mr/seq');
  });

  it('BREAKING_VERSION_REMOVED: version 1 no longer served under a specific policy', async () => {
    const { h, findings } = await change((h) => {
      fs.cpSync(h.file('digits/1'), h.file('digits/2'), { recursive: true });
      h.edit('digits/config.pbtxt', 'max_batch_size: 8\n', 'max_batch_size: 8\nversion_policy: { specific: { versions: [ 2 ] } }\n');
    });
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_VERSION_REMOVED']);
    expect(findings[0]!.line).toBe(lineOf(h, 'digits/config.pbtxt', 'version_policy'));
    expect(findings[0]!.message).toMatch(/version 1 of model 'digits' is no longer served \(baseline served 1 under version_policy latest; now 2\)/);
  });

  it('BREAKING_TENSOR_REMOVED: an input renamed', async () => {
    const { h, findings } = await change((h) => h.edit('seq/config.pbtxt', 'name: "image"', 'name: "pixels"'));
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_TENSOR_REMOVED']);
    expect(findings[0]!.line).toBe(lineOf(h, 'seq/config.pbtxt', 'name: "pixels"'));
    expect(findings[0]!.message).toBe("model input 'image' was removed (renamed to 'pixels'?); it was `\"image\"` (HEAD~1:mr/seq/config.pbtxt:6)");
  });

  it('BREAKING_INPUT_REQUIRED: a new required input', async () => {
    const { findings } = await change((h) => h.edit('seq/config.pbtxt', 'output [', 'input [\n  {\n    name: "mask"\n    data_type: TYPE_FP32\n    dims: [ 10 ]\n  }\n]\noutput ['));
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_INPUT_REQUIRED']);
    expect(findings[0]!.message).toContain("model input 'mask' is new and required");
  });

  it('BREAKING_DATATYPE_CHANGED: an output FP32 → FP16', async () => {
    const { h, findings } = await change((h) => h.edit('seq/config.pbtxt', /(name: "probabilities"\n\s+data_type: )TYPE_FP32/, '$1TYPE_FP16'));
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_DATATYPE_CHANGED']);
    expect(findings[0]!.line).toBe(lineOf(h, 'seq/config.pbtxt', 'TYPE_FP16'));
    expect(findings[0]!.message).toBe("model output 'probabilities' data_type changed from TYPE_FP32 to TYPE_FP16; it was `TYPE_FP32` (HEAD~1:mr/seq/config.pbtxt:14)");
  });

  it('BREAKING_DIMS_CHANGED: a fixed dim changed, and the rank changed', async () => {
    const { findings } = await change((h) => {
      h.edit('seq/config.pbtxt', 'dims: [ 1, 28, 28 ]', 'dims: [ 1, 32, 28 ]');
      h.edit('seq/config.pbtxt', 'dims: [ 10 ]', 'dims: [ 10, 1 ]');
    });
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_DIMS_CHANGED', 'BREAKING_DIMS_CHANGED']);
    expect(findings[0]!.message).toContain("model input 'image' dims [1, 28, 28] → [1, 32, 28]: dim 1 changed from 28 to 32; it was `[ 1, 28, 28 ]`");
    expect(findings[1]!.message).toContain('rank changed from 1 to 2');
  });

  it('BREAKING_MAX_BATCH_SIZE: lowered, and batching turned off', async () => {
    const { h, findings } = await change((h) => {
      h.edit('seq/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: 4');
      h.edit('pipeline/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: 0');
    });
    expect(findings.map((d) => `${d.file} ${d.ruleId}`)).toEqual([
      `${path.join('mr', 'pipeline', 'config.pbtxt')} BREAKING_MAX_BATCH_SIZE`,
      `${path.join('mr', 'seq', 'config.pbtxt')} BREAKING_MAX_BATCH_SIZE`,
    ]);
    expect(findings[0]!.message).toContain('batching was turned off (max_batch_size 8 → 0)');
    expect(findings[1]!.message).toBe('max_batch_size was lowered from 8 to 4: requests with a batch of 5 to 8 now fail; it was `8` (HEAD~1:mr/seq/config.pbtxt:3)');
    expect(findings[1]!.line).toBe(lineOf(h, 'seq/config.pbtxt', 'max_batch_size'));
  });

  it('BREAKING_GEAR_REMOVED: a gear dropped from graph.ge.dynamicDims', async () => {
    const { h, findings } = await change((h) => h.edit('digits/config.pbtxt', '"1;2;4;8"', '"1;2;8"'));
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_GEAR_REMOVED']);
    expect(findings[0]!.line).toBe(lineOf(h, 'digits/config.pbtxt', '"1;2;8"'));
    expect(findings[0]!.message).toContain('gear "4" of graph.ge.dynamicDims was removed');
    expect(findings[0]!.message).toContain('it was `"1;2;4;8"`');
  });

  it('BREAKING_LABELS_CHANGED: two labels swapped', async () => {
    const { findings } = await change((h) => h.edit('digits/labels.txt', 'digit_0\ndigit_1\n', 'digit_1\ndigit_0\n'));
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_LABELS_CHANGED']);
    expect(findings[0]!.message).toContain('label 0 of model output \'probabilities\' was "digit_0" and is now "digit_1"');
    expect(findings[0]!.message).toContain('HEAD~1:mr/digits/labels.txt:1');
  });

  it('BREAKING_SEQUENCE_CONTROL_CHANGED: a control input renamed', async () => {
    const { findings } = await change((h) => h.edit('seq/config.pbtxt', 'name: "START"', 'name: "BEGIN"'));
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_SEQUENCE_CONTROL_CHANGED', 'BREAKING_SEQUENCE_CONTROL_CHANGED']);
    expect(findings.map((d) => d.message).join('\n')).toMatch(/control input 'START' was removed or renamed[^]*control input 'BEGIN' was added/);
  });

  it('BREAKING_ENSEMBLE_INTERFACE: an ensemble output renamed', async () => {
    const { findings } = await change((h) => {
      h.edit('pipeline/config.pbtxt', 'name: "scores"', 'name: "probs"');
      h.edit('pipeline/config.pbtxt', 'value: "scores"', 'value: "probs"');
    });
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_ENSEMBLE_INTERFACE']);
    expect(findings[0]!.message).toContain("model output 'scores' was removed (renamed to 'probs'?)");
  });

  it('has a case above for every rule', async () => {
    const source = fs.readFileSync(import.meta.filename, 'utf8');
    for (const rule of BREAKING_RULES) expect(source).toContain(`it('${rule.id}:`);
  });
});

describe('validate --against: what does not break', () => {
  it('no change: exit 0 and no findings', async () => {
    const h = history();
    h.commit('nothing');
    const { code, all } = await breaking(h);
    expect(all).toEqual([]);
    expect(code).toBe(0);
  });

  it('additions only: a new model, a new version, an optional input, an appended label, a widened input dim', async () => {
    const h = history();
    fs.cpSync(h.file('seq'), h.file('seq_v2'), { recursive: true });
    h.edit('seq_v2/config.pbtxt', 'name: "seq"', 'name: "seq_v2"');
    fs.cpSync(h.file('digits/1'), h.file('digits/2'), { recursive: true });
    h.edit('pipeline/config.pbtxt', 'output [', 'input [\n  {\n    name: "hint"\n    data_type: TYPE_FP32\n    dims: [ 1 ]\n    optional: true\n  }\n]\noutput [');
    h.edit('digits/labels.txt', 'digit_9\n', 'digit_9\nnot_a_digit\n');
    h.edit('digits/config.pbtxt', '"1;2;4;8"', '"1;2;4;8;16"');
    h.edit('seq/config.pbtxt', 'dims: [ 1, 28, 28 ]', 'dims: [ 1, -1, 28 ]');
    h.commit('additions');
    const { findings } = await breaking(h);
    expect(findings).toEqual([]);
  });
});

describe('validate --against: baselines, settings and output', () => {
  it('reads a directory baseline and a tarball baseline like a git ref', async () => {
    const h = history();
    fs.cpSync(h.file(''), path.join(h.dir, 'old'), { recursive: true });
    execFileSync('tar', ['-czf', 'old.tgz', 'mr'], { cwd: h.dir });
    h.edit('seq/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: 2');
    for (const against of ['old', 'old.tgz']) {
      const { code, findings } = await breaking(h, { against });
      expect(code).toBe(1);
      expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_MAX_BATCH_SIZE']);
      expect(findings[0]!.message).toContain(against === 'old' ? `(${path.join('old', 'seq', 'config.pbtxt')}:3)` : '(old.tgz:seq/config.pbtxt:3)');
    }
  });

  it('compares the working tree, uncommitted changes included', async () => {
    const h = history();
    h.edit('seq/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: 2');
    const { findings } = await breaking(h, { against: 'HEAD' });
    expect(findings.map((d) => d.ruleId)).toEqual(['BREAKING_MAX_BATCH_SIZE']);
  });

  it('--against-rule turns a rule off or down; # gebe-ignore silences one finding', async () => {
    const h = history();
    h.edit('seq/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: 2');
    h.commit('lower');
    expect((await breaking(h, { againstRule: ['BREAKING_MAX_BATCH_SIZE=off'] })).findings).toEqual([]);
    const warned = await breaking(h, { againstRule: ['BREAKING_MAX_BATCH_SIZE=warning'] });
    expect(warned.findings.map((d) => d.severity)).toEqual(['warning']);
    expect(warned.code).toBe(0);
    h.edit('seq/config.pbtxt', 'max_batch_size: 2', 'max_batch_size: 2  # gebe-ignore BREAKING_MAX_BATCH_SIZE');
    const ignored = await breaking(h);
    expect(ignored.all).toEqual([]);
    expect(ignored.code).toBe(0);
    await expect(validate(h, { against: 'HEAD~1', againstRule: ['BREAKING_MAX_BATCH=off'] })).rejects.toThrow(/--against-rule names unknown rule BREAKING_MAX_BATCH/);
  });

  it('stops with a usage error for a ref that does not exist', async () => {
    const h = history();
    await expect(validate(h, { against: 'no-such-branch' })).rejects.toThrow(/--against no-such-branch: no such git ref/);
  });

  it('--changed reports only models that differ from the baseline', async () => {
    const h = history();
    h.edit('digits/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: -1');
    h.edit('seq/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: -1');
    h.commit('two broken models');
    h.edit('seq/config.pbtxt', '\n', '\n# touched\n');
    const plain = (JSON.parse((await validate(h, { format: 'json' })).out) as { diagnostics: Finding[] }).diagnostics;
    expect(new Set(plain.filter((d) => d.ruleId === 'MAX_BATCH_SIZE_NEGATIVE').map((d) => d.file)).size).toBe(2);
    const { all } = await breaking(h, { against: 'HEAD', changed: true });
    expect(all.filter((d) => d.ruleId === 'MAX_BATCH_SIZE_NEGATIVE').map((d) => d.file)).toEqual([path.join('mr', 'seq', 'config.pbtxt')]);
  });

  it('prints breaking findings in every format', async () => {
    const h = history();
    h.edit('seq/config.pbtxt', 'max_batch_size: 8', 'max_batch_size: 2');
    const text = await validate(h, { against: 'HEAD' });
    expect(text.out).toMatch(/mr\/seq\/config\.pbtxt:3:17 error BREAKING_MAX_BATCH_SIZE max_batch_size was lowered from 8 to 2/);
    const sarif = JSON.parse((await validate(h, { against: 'HEAD', format: 'sarif' })).out);
    expect(sarif.runs[0].results[0]).toMatchObject({ ruleId: 'BREAKING_MAX_BATCH_SIZE', level: 'error', locations: [{ physicalLocation: { artifactLocation: { uri: 'mr/seq/config.pbtxt' }, region: { startLine: 3 } } }] });
    expect(sarif.runs[0].tool.driver.rules[0].shortDescription.text).toMatch(/^Checks that max_batch_size was not lowered/);
    expect((await validate(h, { against: 'HEAD', format: 'github' })).out).toMatch(/^::error file=mr\/seq\/config\.pbtxt,line=3,.*BREAKING_MAX_BATCH_SIZE/m);
    expect((await validate(h, { against: 'HEAD', format: 'junit' })).out).toContain('BREAKING_MAX_BATCH_SIZE');
  });
});
