import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/core/diagnostic.js';
import { formatGithub } from '../../../src/core/lint/formatters/github.js';
import { formatJson } from '../../../src/core/lint/formatters/json.js';
import { formatJunit } from '../../../src/core/lint/formatters/junit.js';
import { formatSarif } from '../../../src/core/lint/formatters/sarif.js';
import { formatText } from '../../../src/core/lint/formatters/text.js';
import { summarize, type LintReport } from '../../../src/core/lint/formatters/types.js';

const source = 'name: "m"\nbackend: "ge"\nmax_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]\n';
const diagnostics: Diagnostic[] = [
  {
    file: 'repo/m/config.pbtxt', line: 4, column: 48, endLine: 4, endColumn: 64, ruleId: 'DIMS_MAYBE_INCLUDE_BATCH', severity: 'warning',
    message: 'dims [1, 1, 28, 28] look like they include the batch dimension',
    fix: { description: 'drop the first dim', edits: [{ start: 90, end: 106, text: '[ 1, 28, 28 ]' }], safe: false },
  },
  { file: 'repo/m/1', line: 1, column: 1, endLine: 1, endColumn: 1, ruleId: 'GE_MODEL_FILE_MISSING', severity: 'error', message: 'version directory repo/m/1 has no model file' },
];
const report: LintReport = { diagnostics, summary: summarize(diagnostics, 1, 1), sources: new Map([['repo/m/config.pbtxt', source]]) };
const options = { color: false, strict: false, version: '1.2.3' };

describe('text formatter', () => {
  it('prints file:line:col severity RULE_ID message, a code frame with a caret under the span, the fix, and a summary', () => {
    expect(formatText(report, options)).toBe([
      'repo/m/config.pbtxt:4:48 warning DIMS_MAYBE_INCLUDE_BATCH dims [1, 1, 28, 28] look like they include the batch dimension',
      '  3 | max_batch_size: 8',
      '> 4 | input [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]',
      '    |                                                ^^^^^^^^^^^^^^^^',
      '  fix: drop the first dim',
      '',
      'repo/m/1:1:1 error GE_MODEL_FILE_MISSING version directory repo/m/1 has no model file',
      '',
      '✖ 2 problems (1 error, 1 warning, 0 infos) in 1 model, 1 config file checked',
      '',
    ].join('\n'));
  });

  it('cuts code frames of long lines to a window around the span and counts findings past 50 per file', () => {
    const long = `name: "${'\\x'.repeat(1_000_000)}"`;
    const many: Diagnostic[] = Array.from({ length: 1000 }, (_, i) => ({
      file: 'c.pbtxt', line: 1, column: 8 + 2 * i, endLine: 1, endColumn: 10 + 2 * i, ruleId: 'SYNTAX_INVALID_ESCAPE', severity: 'error' as const, message: 'bad escape',
    }));
    const text = formatText({ diagnostics: many, summary: summarize(many, 1, 1), sources: new Map([['c.pbtxt', long]]) }, options);
    expect(text.length).toBeLessThan(50 * 400);
    expect(text).toContain('c.pbtxt: 950 more problems not shown (the first 50 are above; --format json lists all)');
    const frame = text.split('\n').slice(0, 3);
    expect(frame[1]).toBe(`> 1 | ${long.slice(0, 120)}…`);
    expect(frame[2]).toBe('    |        ^^');
    // A span far into the line: the window starts 40 characters before it.
    const far = formatText({ diagnostics: [many[999]!], summary: summarize([many[999]!], 1, 1), sources: new Map([['c.pbtxt', long]]) }, options).split('\n');
    expect(far[1]).toBe(`> 1 | …${long.slice(2005 - 40, 2005 - 40 + 120)}…`);
    expect(far[2]).toBe(`    | ${' '.repeat(41)}^^`);
    // JSON stays complete.
    expect(JSON.parse(formatJson({ diagnostics: many, summary: summarize(many, 1, 1), sources: new Map() }, options)).diagnostics).toHaveLength(1000);
  });

  it('colours only when asked', () => {
    expect(formatText(report, options)).not.toMatch(/\u001b\[/);
    expect(formatText(report, { ...options, color: true })).toMatch(/\u001b\[31merror/);
  });

  it('keeps tabs so the caret lines up under tab-indented text, and says when a fix is safe', () => {
    const d: Diagnostic = { file: 'c.pbtxt', line: 2, column: 3, endLine: 2, endColumn: 5, ruleId: 'SYNTAX_SLASH_COMMENT', severity: 'error', message: 'no // comments', fix: { description: 'Replace "//" with "#"', edits: [], safe: true } };
    const out = formatText({ diagnostics: [d], summary: summarize([d], 1, 1), sources: new Map([['c.pbtxt', 'name: "m"\n\t\t// x\n']]) }, options);
    expect(out).toContain('> 2 | \t\t// x\n    | \t\t^^\n  fix (--fix applies it): Replace "//" with "#"');
  });

  it('says so when there is nothing to report', () => {
    expect(formatText({ diagnostics: [], summary: summarize([], 3, 3), sources: new Map() }, options)).toBe('✔ no problems (3 models, 3 config files checked)\n');
  });
});

describe('json formatter', () => {
  it('prints the stable version-1 shape with 1-based positions', () => {
    const out = JSON.parse(formatJson(report, options));
    expect(Object.keys(out)).toEqual(['version', 'diagnostics', 'summary']);
    expect(out.version).toBe(1);
    expect(Object.keys(out.diagnostics[0])).toEqual(['file', 'line', 'column', 'endLine', 'endColumn', 'ruleId', 'severity', 'message', 'fix']);
    expect(Object.keys(out.diagnostics[1])).not.toContain('fix');
    expect(out.summary).toEqual({ errors: 1, warnings: 1, infos: 0, models: 1, files: 1 });
  });
});

describe('github formatter', () => {
  it('prints one workflow-command annotation per finding, escaped', () => {
    const d: Diagnostic = { file: 'a,b:c.pbtxt', line: 2, column: 3, endLine: 2, endColumn: 9, ruleId: 'X_Y', severity: 'info', message: '100% sure\nsecond line', fix: { description: 'do it', edits: [], safe: false } };
    const out = formatGithub({ diagnostics: [d, ...diagnostics], summary: summarize([d, ...diagnostics], 1, 1), sources: new Map() }, options).split('\n');
    expect(out[0]).toBe('::notice file=a%2Cb%3Ac.pbtxt,line=2,col=3,endLine=2,endColumn=9,title=X_Y::100%25 sure%0Asecond line%0Afix: do it');
    expect(out[1]).toMatch(/^::warning file=repo\/m\/config.pbtxt,line=4,col=48,endLine=4,endColumn=64,title=DIMS_MAYBE_INCLUDE_BATCH::/);
    expect(out[2]).toBe('::error file=repo/m/1,line=1,col=1,endLine=1,endColumn=1,title=GE_MODEL_FILE_MISSING::version directory repo/m/1 has no model file');
  });
});

describe('sarif formatter', () => {
  it('prints SARIF 2.1.0 with rules, help links, levels and regions as GitHub code scanning reads them', () => {
    const sarif = JSON.parse(formatSarif(report, options));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.$schema).toMatch(/sarif-2\.1\.0/);
    const run = sarif.runs[0];
    expect(run.tool.driver.name).toBe('gebe');
    expect(run.tool.driver.semanticVersion).toBe('1.2.3');
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(['DIMS_MAYBE_INCLUDE_BATCH', 'GE_MODEL_FILE_MISSING']);
    expect(run.tool.driver.rules[1].helpUri).toMatch(/docs\/rules\/GE_MODEL_FILE_MISSING\.md$/);
    expect(run.tool.driver.rules[1].defaultConfiguration.level).toBe('error');
    expect(run.results[0]).toMatchObject({
      ruleId: 'DIMS_MAYBE_INCLUDE_BATCH', ruleIndex: 0, level: 'warning',
      locations: [{ physicalLocation: { artifactLocation: { uri: 'repo/m/config.pbtxt' }, region: { startLine: 4, startColumn: 48, endLine: 4, endColumn: 64 } } }],
    });
    expect(run.results[0].message.text).toContain('Fix: drop the first dim');
    // A zero-width location still gets a region GitHub accepts (endColumn > startColumn on one line).
    expect(run.results[1].locations[0].physicalLocation.region).toEqual({ startLine: 1, startColumn: 1, endLine: 1, endColumn: 2 });
    // A suggestion is not a SARIF fix: a consumer may apply those unasked.
    expect(run.results[0].fixes).toBeUndefined();
  });

  it('ends the message with one period before "Fix:", and gives safe fixes as SARIF fixes with line/column regions', () => {
    const text = 'name: "m"\nbackend: "GE"\n';
    const d: Diagnostic = {
      file: './m/config.pbtxt', line: 2, column: 10, endLine: 2, endColumn: 14, ruleId: 'BACKEND_NAME_TYPO', severity: 'warning',
      message: 'Protobuf text format has no "//" comments; start the comment with "#" instead.',
      fix: { description: 'use backend: "ge"', edits: [{ start: 19, end: 23, text: '"ge"' }], safe: true },
    };
    const sarif = JSON.parse(formatSarif({ diagnostics: [d], summary: summarize([d], 1, 1), sources: new Map([[d.file, text]]) }, options));
    const result = sarif.runs[0].results[0];
    expect(result.message.text).toBe('Protobuf text format has no "//" comments; start the comment with "#" instead. Fix: use backend: "ge"');
    expect(result.fixes).toEqual([{
      description: { text: 'use backend: "ge"' },
      artifactChanges: [{
        artifactLocation: { uri: 'm/config.pbtxt' },
        replacements: [{ deletedRegion: { startLine: 2, startColumn: 10, endLine: 2, endColumn: 14 }, insertedContent: { text: '"ge"' } }],
      }],
    }]);
  });
});

describe('junit formatter', () => {
  it('makes errors failures, keeps warnings passing unless strict, and lists clean files', () => {
    const withClean: LintReport = { ...report, sources: new Map([...report.sources, ['repo/ok/config.pbtxt', 'name: "ok"']]) };
    const xml = formatJunit(withClean, options);
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="gebe validate" tests="3" failures="1" errors="0">/);
    expect(xml).toContain('<testsuite name="repo/m/1" tests="1" failures="1"');
    expect(xml).toContain('<failure message="version directory repo/m/1 has no model file" type="GE_MODEL_FILE_MISSING">');
    expect(xml).toContain('<testcase name="valid" classname="repo/ok/config.pbtxt"/>');
    expect(formatJunit(withClean, { ...options, strict: true })).toContain('failures="2" errors="0">');
  });

  it('escapes XML', () => {
    const d: Diagnostic = { file: 'a&b.pbtxt', line: 1, column: 1, endLine: 1, endColumn: 2, ruleId: 'X_Y', severity: 'error', message: '<"quoted"> & \u0001' };
    const xml = formatJunit({ diagnostics: [d], summary: summarize([d], 1, 1), sources: new Map() }, options);
    expect(xml).toContain('message="&lt;&quot;quoted&quot;&gt; &amp; \ufffd"');
    expect(xml).toContain('classname="a&amp;b.pbtxt"');
  });
});
