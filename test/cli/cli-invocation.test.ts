import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInvocation } from '../../src/cli-invocation.js';

describe('cliInvocation', () => {
  it('prints the clone\'s own launcher from a clone, relative to where the user is', () => {
    const root = '/home/u/gebe';
    expect(cliInvocation({ env: {}, cwd: root, packageRoot: root, script: `${root}/bin/gebe.js` })).toBe('node bin/gebe.js');
    expect(cliInvocation({ env: {}, cwd: `${root}/examples`, packageRoot: root, script: `${root}/bin/gebe.js` })).toBe('node /home/u/gebe/bin/gebe.js');
    expect(cliInvocation({ env: {}, cwd: '/home/u', packageRoot: root, script: `${root}/bin/gebe.js` })).toBe('node gebe/bin/gebe.js');
    expect(cliInvocation({ env: {}, cwd: '/home/u', packageRoot: '/home/u/my gebe', script: '' })).toBe("node 'my gebe/bin/gebe.js'");
  });

  it('prints npx gebe under npx and for a project dependency, gebe for a global install on PATH', () => {
    const installed = '/usr/lib/node_modules/gebe';
    expect(cliInvocation({ env: { npm_command: 'exec' }, cwd: '/p', packageRoot: '/home/u/gebe' })).toBe('npx gebe');
    expect(cliInvocation({ env: { PATH: '/usr/bin' }, cwd: '/p', packageRoot: '/p/node_modules/gebe', script: '/p/node_modules/.bin/gebe' })).toBe('npx gebe');
    expect(cliInvocation({ env: { PATH: ['/usr/local/bin', '/usr/bin'].join(path.delimiter) }, cwd: '/p', packageRoot: installed, script: '/usr/bin/gebe' })).toBe('gebe');
  });
});
