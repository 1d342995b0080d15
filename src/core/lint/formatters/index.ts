import { formatGithub } from './github.js';
import { formatJson } from './json.js';
import { formatJunit } from './junit.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';
import type { Formatter } from './types.js';

export type { Formatter, FormatOptions, LintReport, Summary } from './types.js';
export { summarize } from './types.js';

export const FORMATTERS = {
  text: formatText,
  json: formatJson,
  sarif: formatSarif,
  github: formatGithub,
  junit: formatJunit,
} satisfies Record<string, Formatter>;

export type FormatName = keyof typeof FORMATTERS;
