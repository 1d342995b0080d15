import type { ConfigSource } from '../../repository/types.js';
import { hint, type ScanRule } from '../rule.js';

export const rule: ScanRule = {
  id: 'CONFIG_NOT_UTF8',
  purpose: 'Checks that config.pbtxt is valid UTF-8, which protobuf text format requires.',
  severity: 'error',
  fixable: false,
  scope: 'scan',
  check(ctx) {
    const sources = [ctx.target.config, ...ctx.target.models.map((m) => m.config)].filter((s): s is ConfigSource => s !== undefined);
    for (const source of sources) {
      const bad = source.invalidUtf8;
      if (!bad) continue;
      const start = { line: bad.line, column: bad.column, offset: bad.offset };
      ctx.report({
        file: source.display,
        span: { start, end: { ...start, column: start.column + 1, offset: start.offset + 1 } },
        message: `${source.display} is not valid UTF-8: the byte at line ${bad.line}, column ${bad.column} is not part of a UTF-8 character`,
        fix: hint('re-save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)'),
      });
    }
  },
};
