/**
 * GitHub Actions workflow commands: one `::error file=...,line=...::message` annotation per finding.
 * https://docs.github.com/actions/reference/workflow-commands-for-github-actions
 */
import type { Formatter } from './types.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'notice' } as const;

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export const formatGithub: Formatter = (report) => {
  const lines = report.diagnostics.map((d) => {
    const props = [
      `file=${escapeProperty(d.file)}`, `line=${d.line}`, `col=${d.column}`,
      `endLine=${d.endLine}`, `endColumn=${d.endColumn}`, `title=${escapeProperty(d.ruleId)}`,
    ].join(',');
    const body = d.fix ? `${d.message}\nfix: ${d.fix.description}` : d.message;
    return `::${LEVEL[d.severity]} ${props}::${escapeData(body)}`;
  });
  const s = report.summary;
  lines.push(`${s.errors} errors, ${s.warnings} warnings, ${s.infos} infos in ${s.models} models (${s.files} config files)`);
  return `${lines.join('\n')}\n`;
};
