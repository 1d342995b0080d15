/**
 * `gebe explain` on Triton's own messages: for each of the 58 noautofill_platform reject cases
 * of Triton's L0_model_config QA (../shared/corpus/triton-l0-model-config), a log line as
 * Triton writes it (ModelLifeCycle's "failed to load '<m>' version <v>: <code>: <message>", with
 * the case's expected fragment as the message) must be recognised and pointed at the rule that
 * `gebe validate` reports for that config, at its file and line. Every pattern must also be
 * traceable to the corpus case (or source file) it names.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { runExplain } from '../../../src/commands/explain/run.js';
import { runValidate } from '../../../src/commands/validate/run.js';
import { toValidateOptions } from '../../../src/commands/validate/options.js';
import { findLoadFailures } from '../../../src/core/explain/log.js';
import { LOAD_ERROR_PATTERNS, templateRegExp } from '../../../src/core/explain/patterns.js';
import { memoryIO } from '../../../src/io.js';
import { QA_EXCEPTIONS } from '../validate/triton-qa-exceptions.js';
import { corpusDir, expectedFiles, expectedMessage, qaCases, withPlatform } from '../validate/triton-qa.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-explain-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A grep fragment as the text Triton logged: its backslash escapes undone. */
const logged = (fragment: string) => fragment.trim().replace(/\\(.)/g, '$1');

interface JsonFailure { line: number; model: string; recognised: boolean; rules: string[]; rule: string | null; location: { file: string; line: number } | null }

describe('gebe explain: Triton L0_model_config reject cases', () => {
  const cases = qaCases('noautofill_platform');
  const repo = path.join(tmp, 'model_repository');
  const lines: string[] = ['I1201 10:00:00.000001 1 server.cc:100] starting'];
  const expected = new Map<string, { rule: string | null; file: string; line: number | null }>();

  it('prepares the 58 cases as one repository and one log', async () => {
    expect(cases).toHaveLength(58);
    for (const c of cases) {
      const file = path.join(repo, c.model, 'config.pbtxt');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, withPlatform(fs.readFileSync(path.join(c.dir, 'config.pbtxt'), 'utf8'), 'onnxruntime_onnx'));
      const fragments = expectedFiles(c.dir).map((f) => fs.readFileSync(f, 'utf8'));
      // The rule and line gebe validate reports for the same config, with Triton's wording.
      const io = memoryIO({ cwd: tmp });
      await runValidate(toValidateOptions([file], { format: 'json' }), io);
      const errors = (JSON.parse(io.out()) as { diagnostics: Array<{ ruleId: string; severity: string; message: string; line: number }> }).diagnostics.filter((d) => d.severity === 'error');
      const patterns = fragments.map((f) => expectedMessage(f, c.model));
      const exception = QA_EXCEPTIONS[c.id];
      const match = exception?.treatment === 'other-message' ? errors[0] : errors.find((d) => patterns.some((p) => p.test(d.message)));
      expected.set(c.model, { rule: exception?.treatment === 'no-error' ? null : match!.ruleId, file: path.join('model_repository', c.model, 'config.pbtxt'), line: match?.line ?? null });
      lines.push(`E1201 10:00:01.${String(lines.length).padStart(6, '0')} 1 model_lifecycle.cc:639] failed to load '${c.model}' version 1: Invalid argument: ${logged(fragments[0]!)}`);
      // Triton logs the failure again on the next repository poll: reported once.
      lines.push(lines[lines.length - 1]!.replace('10:00:01', '10:00:02'));
    }
    fs.writeFileSync(path.join(tmp, 'tritonserver.log'), `${lines.join('\n')}\n`);
  });

  it('recognises every case and points it at the rule, file and line gebe validate reports', async () => {
    const io = memoryIO({ cwd: tmp });
    const code = await runExplain({ log: 'tritonserver.log', modelRepository: 'model_repository', format: 'json' }, io);
    expect(code).toBe(1);
    const failures = (JSON.parse(io.out()) as { failures: JsonFailure[] }).failures;
    expect(failures).toHaveLength(58);
    let recognised = 0;
    let right = 0;
    for (const f of failures) {
      const want = expected.get(f.model)!;
      if (f.recognised) recognised++;
      if (f.rule === want.rule && (want.rule === null || (f.location?.file === want.file && f.location.line === want.line))) right++;
      else expect.soft({ model: f.model, rule: f.rule, location: f.location }).toEqual({ model: f.model, rule: want.rule, location: want.rule ? expect.objectContaining({ file: want.file, line: want.line }) : null });
    }
    console.log(`gebe explain: ${recognised}/58 recognised, ${right}/58 pointed at the right rule (and line)`);
    expect(recognised).toBe(58);
    expect(right).toBe(58);
  });

  it('without a repository, names the candidate rules', async () => {
    const io = memoryIO({ cwd: tmp });
    await runExplain({ log: 'tritonserver.log', format: 'json' }, io);
    const failures = (JSON.parse(io.out()) as { failures: JsonFailure[] }).failures;
    for (const f of failures) {
      const want = expected.get(f.model)!;
      if (want.rule) expect(f.rules, f.model).toContain(want.rule);
      else expect(f.rules).toEqual([]);
    }
  });

  it('reads stdin and prints text', async () => {
    const io = memoryIO({ cwd: tmp });
    const stdin = Readable.from([fs.readFileSync(path.join(tmp, 'tritonserver.log'), 'utf8')]);
    await runExplain({ log: '-', modelRepository: 'model_repository', format: 'text' }, io, stdin);
    expect(io.out()).toContain("<stdin>:2 model 'batch_input_less_source0' version 1 failed to load: Invalid argument: batch input kind 'BATCH_ELEMENT_COUNT' expects 1 source input, got 0");
    expect(io.out()).toMatch(/ {2}rule: BATCH_INPUT_INVALID, caught before deploy by gebe validate/);
    expect(io.out()).toMatch(/ {2}at: {3}model_repository\/batch_input_less_source0\/config\.pbtxt:\d+:\d+ /);
    expect(io.out()).toMatch(/58 model-load failures, 58 recognised\n$/);
  });

  it('exits 0 on a log without load failures', async () => {
    fs.writeFileSync(path.join(tmp, 'clean.log'), "I1201 10:00:00.000001 1 model_lifecycle.cc:800] successfully loaded 'm' version 1\n");
    const io = memoryIO({ cwd: tmp });
    expect(await runExplain({ log: 'clean.log', format: 'text' }, io)).toBe(0);
    expect(io.out()).toBe('no model-load failures in the log\n');
    const cli = memoryIO({ cwd: tmp });
    expect(await main(['node', 'gebe', 'explain', 'clean.log'], cli)).toBe(0);
    expect(await main(['node', 'gebe', 'explain', 'tritonserver.log', '--model-repository', 'model_repository', '--format', 'json'], cli)).toBe(1);
    expect(await main(['node', 'gebe', 'explain', 'missing.log'], cli)).toBe(2);
    expect(cli.err()).toContain('missing.log does not exist');
  });
});

describe('gebe explain patterns', () => {
  const manifest = fs.readFileSync(path.join(corpusDir, 'manifest.tsv'), 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string, string]);

  it("take their wording from the corpus case (or source file) they name", () => {
    for (const p of LOAD_ERROR_PATTERNS) {
      const [group, first] = p.source.split(', ')[0]!.split(/\/(?=[^/]+$)/);
      if (!p.source.startsWith('qa/')) {
        expect(fs.readFileSync(path.resolve(import.meta.dirname, '../../..', p.source), 'utf8'), p.template).toContain(p.template);
        continue;
      }
      const row = manifest.find((r) => r[1] === `${group}/${first}`);
      expect(row, p.source).toBeDefined();
      const fragments = expectedFiles(path.join(corpusDir, 'cases', row![0])).map((f) => logged(fs.readFileSync(f, 'utf8')));
      expect(fragments.some((f) => templateRegExp(p.template).test(f)), `${p.template} vs ${fragments.join(' | ')}`).toBe(true);
    }
  });

  it('find failures behind a prefix and without the envelope, once each', () => {
    const log = [
      "2026-12-01T10:00:00.000Z E1201 10:00:00.000001 1 model_lifecycle.cc:639] failed to load 'm' version 3: Invalid argument: 'max_batch_size' must be non-negative value for m",
      "E1201 10:00:00.000002 1 model_lifecycle.cc:639] failed to load 'm' version 3: Invalid argument: 'max_batch_size' must be non-negative value for m",
      "E1201 10:00:00.000003 1 ensemble_utils.cc:1] must specify 'step' for ensemble 'pipe'",
      "E1201 10:00:00.000004 1 model_lifecycle.cc:639] failed to load 'x' version 1: Internal: something new",
      'W1201 10:00:00.000005 1 server.cc:1] must specify \'step\' for ensemble \'warn_only\'',
    ].join('\n');
    const found = findLoadFailures(log);
    expect(found.map((f) => [f.line, f.model, f.version ?? null, f.pattern?.rules ?? null])).toEqual([
      [1, 'm', '3', ['MAX_BATCH_SIZE_NEGATIVE']],
      [3, undefined, null, ['ENSEMBLE_DATAFLOW']],
      [4, 'x', '1', null],
    ]);
  });
});
