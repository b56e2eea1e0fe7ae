/**
 * The house rule for workflow code, checked the way a lint rule would: everything the workflow
 * bundle pulls in at run time (workflows/ and whatever it imports, followed file by file) imports
 * no Node module and no package but @temporalio/workflow, and nothing from the layers that do
 * I/O. Type-only imports are erased at build time and are fine.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { resolveImport, runtimeSpecifiers } from '../helpers/import-graph';

const ROOT = resolve(__dirname, '..', '..');
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow']);
const IO_LAYERS = ['gateway/', 'store/', 'activities/', 'workers/', 'scripts/'];

/** What the bundle that starts at `entry` imports that workflow code must not. */
function workflowBundleProblems(entry: string): { files: string[]; problems: string[] } {
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const where = relative(ROOT, file);
    if (IO_LAYERS.some((layer) => where.startsWith(layer)))
      problems.push(`${where} is an I/O layer, imported at run time by workflow code`);
    for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) {
        if (!ALLOWED_PACKAGES.has(specifier)) problems.push(`${where} imports ${specifier}`);
        continue;
      }
      const target = resolveImport(file, specifier);
      if (target) queue.push(target);
      else problems.push(`${where} imports ${specifier}, which does not resolve`);
    }
  }
  return { files: [...seen].map((f) => relative(ROOT, f)).sort(), problems };
}

test('workflow code imports nothing but @temporalio/workflow and pure project modules', () => {
  const { files, problems } = workflowBundleProblems(join(ROOT, 'workflows', 'index.ts'));
  expect(files).toEqual(
    expect.arrayContaining(['workflows/twin/device-twin.ts', 'workflows/twin/liveness.ts', 'common/liveness.ts', 'common/pins.ts']),
  );
  expect(problems).toEqual([]);
});

test('the check sees what it must refuse', () => {
  expect(
    runtimeSpecifiers(
      "import { readFile } from 'node:fs';\nimport type { X } from '../store';\nexport { z } from './z';\nimport 'side-effect';",
    ),
  ).toEqual(['node:fs', 'side-effect', './z']);
});
