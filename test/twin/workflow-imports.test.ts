/**
 * The house rule for workflow code, checked the way a lint rule would: everything the workflow
 * bundle pulls in at run time (workflows/ and whatever it imports, followed file by file) imports
 * no Node module and no package but @temporalio/workflow, and nothing from the layers that do
 * I/O. Type-only imports are erased at build time and are fine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const ENTRY = join(ROOT, 'workflows', 'index.ts');
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow']);
const IO_LAYERS = ['gateway/', 'store/', 'activities/', 'workers/', 'scripts/'];

/** Run-time module specifiers of a file: `import x from`, `import {a, type B} from`, `export ... from`, `import 'x'`; not `import type`. */
function runtimeImports(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(statement)) {
    if (m[5]) {
      specifiers.push(m[5]);
      continue;
    }
    if (m[2]) continue; // import type / export type
    const clause = m[3] ?? '';
    const named = /^\{([^}]*)\}$/.exec(clause.trim());
    if (named && named[1]!.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '))) continue;
    specifiers.push(m[4]!);
  }
  return specifiers;
}

function resolveLocal(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  throw new Error(`${relative(ROOT, from)} imports ${specifier}, which does not resolve`);
}

function workflowBundleProblems(): { files: string[]; problems: string[] } {
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = [ENTRY];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const where = relative(ROOT, file);
    if (IO_LAYERS.some((layer) => where.startsWith(layer))) problems.push(`${where} is an I/O layer, imported at run time by workflow code`);
    for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) queue.push(resolveLocal(file, specifier));
      else if (!ALLOWED_PACKAGES.has(specifier)) problems.push(`${where} imports ${specifier}`);
    }
  }
  return { files: [...seen].map((f) => relative(ROOT, f)).sort(), problems };
}

test('workflow code imports nothing but @temporalio/workflow and pure project modules', () => {
  const { files, problems } = workflowBundleProblems();
  expect(files).toEqual(expect.arrayContaining(['workflows/device-twin.ts', 'workflows/twin-state.ts', 'common/pins.ts']));
  expect(problems).toEqual([]);
});

test('the check sees what it must refuse', () => {
  expect(runtimeImports("import { readFile } from 'node:fs';\nimport type { X } from '../store';\nimport { type Y } from './y';\nexport { z } from './z';\nimport 'side-effect';")).toEqual([
    'node:fs',
    './z',
    'side-effect',
  ]);
  expect(runtimeImports("import { a, type B } from '../activities';")).toEqual(['../activities']);
});
