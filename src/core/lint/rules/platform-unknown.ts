import { respelledName } from '../../config/suggest.js';
import { closest, KNOWN_PLATFORMS, replaceFix } from '../helpers.js';
import type { ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'PLATFORM_UNKNOWN',
  purpose: "Checks that 'platform' is one of the platforms Triton knows.",
  severity: 'error',
  fixable: true,
  scope: 'config',
  check(ctx) {
    const { platform, backend } = ctx.config;
    // With a backend set, Triton resolves the model by backend and does not interpret the platform.
    if (!platform || backend || KNOWN_PLATFORMS.includes(platform)) return;
    const respelled = respelledName(platform, KNOWN_PLATFORMS);
    const suggestion = respelled ?? closest(platform, KNOWN_PLATFORMS);
    const span = ctx.parse.locate(['platform']);
    ctx.report({
      at: ['platform'],
      message: `unexpected platform type '${platform}'${suggestion ? `; did you mean '${suggestion}'?` : ''} (known: ${KNOWN_PLATFORMS.join(', ')})`,
      fix: suggestion
        ? replaceFix(span, JSON.stringify(suggestion), `use platform "${suggestion}"`, suggestion === respelled)
        : { description: 'set backend instead of platform for custom backends (e.g. backend: "ge")', edits: [], safe: false },
    });
  },
};
