/**
 * The CI side of `gebe validate`: gebe.config.json (found walking up, severities, per-directory
 * overrides, ignores, strict, maxWarnings, against), --print-config, --max-warnings, --explain
 * and unused `# gebe-ignore` comments — on a real repository in a temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toValidateOptions, type ValidateFlags } from '../../../src/commands/validate/options.js';
import { runValidate } from '../../../src/commands/validate/run.js';
import { BREAKING_RULES } from '../../../src/core/lint/breaking/rules.js';
import { memoryIO } from '../../../src/io.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-ci-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** A repository with two models whose max_batch_size is negative (an error) and no version (an error). */
function project(config?: object | string): string {
  const dir = path.join(tmp, `p${n++}`);
  for (const m of ['legacy/old', 'current/new']) {
    const [group, name] = m.split('/');
    fs.mkdirSync(path.join(dir, 'models', group!, name!, '1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'models', group!, name!, 'config.pbtxt'), `name: "${name}"\nplatform: "ensemble"\nmax_batch_size: -1\n`);
  }
  if (config !== undefined) fs.writeFileSync(path.join(dir, 'gebe.config.json'), typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return dir;
}

interface Finding { ruleId: string; severity: string; file: string; line: number; message: string }

async function run(cwd: string, paths: string[], flags: ValidateFlags = {}) {
  const io = memoryIO({ cwd });
  const code = await runValidate(toValidateOptions(paths, { format: 'json', ...flags }), io);
  const out = io.out();
  return { code, out, err: io.err(), findings: flags.format === undefined || flags.format === 'json' ? (out.trim().startsWith('{') && !flags.printConfig ? (JSON.parse(out) as { diagnostics: Finding[] }).diagnostics : []) : [] };
}

const ids = (findings: Finding[]) => findings.map((d) => `${d.file.split(path.sep).join('/')} ${d.ruleId}:${d.severity}`);

describe('gebe.config.json', () => {
  it('is found by walking up from the validated path, and sets severities per directory', async () => {
    const dir = project({
      rules: { MAX_BATCH_SIZE_NEGATIVE: 'warning' },
      overrides: [{ files: ['models/current/**'], rules: { MAX_BATCH_SIZE_NEGATIVE: 'error' } }],
    });
    const { findings } = await run(path.join(dir, 'models'), ['legacy', 'current']);
    const mbs = findings.filter((d) => d.ruleId === 'MAX_BATCH_SIZE_NEGATIVE');
    expect(ids(mbs)).toEqual(['current/new/config.pbtxt MAX_BATCH_SIZE_NEGATIVE:error', 'legacy/old/config.pbtxt MAX_BATCH_SIZE_NEGATIVE:warning']);
  });

  it('ignores files by glob, and a --rule flag wins over the file', async () => {
    const dir = project({ ignores: ['models/legacy/**'], rules: { MAX_BATCH_SIZE_NEGATIVE: 'off' } });
    const plain = await run(dir, ['models/legacy', 'models/current']);
    expect(plain.findings.some((d) => d.file.includes('legacy'))).toBe(false);
    expect(plain.findings.some((d) => d.ruleId === 'MAX_BATCH_SIZE_NEGATIVE')).toBe(false);
    const flagged = await run(dir, ['models/legacy', 'models/current'], { rule: ['MAX_BATCH_SIZE_NEGATIVE=info'] });
    expect(ids(flagged.findings.filter((d) => d.ruleId === 'MAX_BATCH_SIZE_NEGATIVE'))).toEqual(['models/current/new/config.pbtxt MAX_BATCH_SIZE_NEGATIVE:info']);
  });

  it('sets strict and maxWarnings', async () => {
    const off = Object.fromEntries(['MAX_BATCH_SIZE_NEGATIVE', 'VERSION_MISSING', 'ENSEMBLE_DATAFLOW', 'ENSEMBLE_STEP_MODEL', 'ENSEMBLE_SCHEDULING_MISMATCH'].map((id) => [id, 'off']));
    const warnOnly = { ...off, MAX_BATCH_SIZE_NEGATIVE: 'warning' };
    const relaxed = await run(project({ rules: warnOnly }), ['models/legacy', 'models/current']);
    expect(relaxed.findings.filter((d) => d.severity === 'error')).toEqual([]);
    expect(relaxed.code).toBe(0);
    expect((await run(project({ rules: warnOnly, strict: true }), ['models/legacy', 'models/current'])).code).toBe(1);
    const capped = await run(project({ rules: warnOnly, maxWarnings: 1 }), ['models/legacy', 'models/current']);
    expect(capped.code).toBe(1);
    expect(capped.err).toContain('gebe found too many warnings: 2 (--max-warnings 1)');
    expect((await run(project({ rules: warnOnly }), ['models/legacy', 'models/current'], { maxWarnings: '2' })).code).toBe(0);
  });

  it('names the file, line and key of a mistake', async () => {
    await expect(run(project('{ "rules": { "MAX_BATCH_SIZE_NEGATIV": "off" } }'), ['models'])).rejects.toThrow(/gebe.config.json:1: "rules" names unknown rule MAX_BATCH_SIZE_NEGATIV/);
    await expect(run(project('{\n  "rulez": {}\n}'), ['models'])).rejects.toThrow(/gebe.config.json:2: unknown key "rulez"/);
    await expect(run(project('{\n  "rules": { "VERSION_MISSING": "loud" }\n}'), ['models'])).rejects.toThrow(/rules.VERSION_MISSING must be "off", "info", "warning" or "error"/);
    await expect(run(project('{ "rules": { }, }'), ['models'])).rejects.toThrow(/gebe.config.json:1:\d+: not valid JSON/);
    await expect(run(project({ overrides: [{ rules: {} }] }), ['models'])).rejects.toThrow(/needs "files"/);
  });

  it('--print-config shows the effective settings for a path', async () => {
    const dir = project({ against: 'main', ignores: ['models/legacy/**'], overrides: [{ files: ['models/current/**'], rules: { VERSION_MISSING: 'warning' }, againstRules: { BREAKING_LABELS_CHANGED: 'off' } }] });
    const current = JSON.parse((await run(dir, [], { printConfig: 'models/current/new' })).out);
    expect(current).toMatchObject({ configFile: path.join(dir, 'gebe.config.json'), ignored: false, against: 'main', strict: false });
    expect(current.rules.VERSION_MISSING).toBe('warning');
    expect(current.rules.MAX_BATCH_SIZE_NEGATIVE).toBe('error');
    expect(current.againstRules.BREAKING_LABELS_CHANGED).toBe('off');
    expect(Object.keys(current.againstRules)).toEqual(BREAKING_RULES.map((r) => r.id));
    const legacy = JSON.parse((await run(dir, [], { printConfig: 'models/legacy/old', rule: ['VERSION_MISSING=info'] })).out);
    expect(legacy).toMatchObject({ ignored: true, rules: { VERSION_MISSING: 'info' } });
  });
});

describe('validate --explain and unused suppressions', () => {
  it('--explain prints the rule docs, for lint and breaking rules', async () => {
    const dir = project();
    expect((await run(dir, [], { explain: 'version_missing' })).out).toMatch(/^# VERSION_MISSING\n/);
    expect((await run(dir, [], { explain: 'BREAKING_LABELS_CHANGED' })).out).toMatch(/^# BREAKING_LABELS_CHANGED\n/);
    await expect(run(dir, [], { explain: 'VERSION_MISING' })).rejects.toThrow(/unknown rule VERSION_MISING/);
  });

  it('reports # gebe-ignore comments that silence nothing or name an unknown rule', async () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, 'models/current/new/config.pbtxt'), 'name: "new"\nplatform: "ensemble"\nmax_batch_size: -1  # gebe-ignore MAX_BATCH_SIZE_NEGATIVE\n# gebe-ignore VERSION_MISING, PLATFORM_UNKNOWN\n');
    const { findings } = await run(dir, ['models/current/new']);
    const unused = findings.filter((d) => d.ruleId === 'SUPPRESSION_UNUSED');
    expect(unused.map((d) => `${d.line} ${d.message}`)).toEqual([
      '4 # gebe-ignore PLATFORM_UNKNOWN silences nothing: PLATFORM_UNKNOWN reports no finding on this line or the next',
      '4 # gebe-ignore names unknown rule VERSION_MISING (did you mean VERSION_MISSING?), so it silences nothing',
    ]);
    expect(findings.some((d) => d.ruleId === 'MAX_BATCH_SIZE_NEGATIVE')).toBe(false);
    const off = await run(dir, ['models/current/new'], { rule: ['SUPPRESSION_UNUSED=off'] });
    expect(off.findings.some((d) => d.ruleId === 'SUPPRESSION_UNUSED')).toBe(false);
  });
});
