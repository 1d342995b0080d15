/**
 * JUnit XML for CI test reports: one testsuite per file, one testcase per finding. Errors are
 * failures (warnings too under --strict); other findings pass and carry their text in system-out.
 * Config files without findings appear as one passing testcase each.
 */
import type { Formatter } from './types.js';

function xml(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export const formatJunit: Formatter = (report, options) => {
  const byFile = new Map<string, typeof report.diagnostics>();
  for (const file of report.sources.keys()) byFile.set(file, []);
  for (const d of report.diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  let total = 0;
  let failures = 0;
  const suites: string[] = [];
  for (const [file, diags] of [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const cases: string[] = [];
    let suiteFailures = 0;
    if (diags.length === 0) cases.push(`    <testcase name="valid" classname="${xml(file)}"/>`);
    for (const d of diags) {
      const failing = d.severity === 'error' || (options.strict && d.severity === 'warning');
      const text = `${d.file}:${d.line}:${d.column} ${d.severity} ${d.ruleId} ${d.message}${d.fix ? `\nfix: ${d.fix.description}` : ''}`;
      const name = `${d.ruleId} ${d.line}:${d.column}`;
      if (failing) {
        suiteFailures++;
        cases.push(`    <testcase name="${xml(name)}" classname="${xml(file)}">\n      <failure message="${xml(d.message)}" type="${d.ruleId}">${xml(text)}</failure>\n    </testcase>`);
      } else {
        cases.push(`    <testcase name="${xml(name)}" classname="${xml(file)}">\n      <system-out>${xml(text)}</system-out>\n    </testcase>`);
      }
    }
    total += cases.length;
    failures += suiteFailures;
    suites.push(`  <testsuite name="${xml(file)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="0">\n${cases.join('\n')}\n  </testsuite>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="gebe validate" tests="${total}" failures="${failures}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
};
