/**
 * Lets a child `node` process run the project's TypeScript directly (node -r this file x.ts):
 * the same swc transform jest uses. Tests use it to run workers/main.ts as a real process.
 */
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  });
  module._compile(code, filename);
};
