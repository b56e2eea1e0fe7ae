import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The project's run-time import graph, read from the sources: `import … from`, `export … from`,
 * side-effect imports, `import()` and `require()` of relative paths. Type-only imports and exports
 * are left out: they are erased, so they cannot make a cycle at run time. (madge does this job in
 * most projects; its TypeScript parser needs the TypeScript 5 JavaScript API, which TypeScript 7
 * does not ship.)
 */
const SPECIFIERS = [
  /^\s*import\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm,
  /^\s*export\s+(?!type\s)[^'";]*?\sfrom\s+['"]([^'"]+)['"]/gm,
  /\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g,
];

export type ImportGraph = Map<string, string[]>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every run-time specifier a source file imports, packages included. */
export function runtimeSpecifiers(source: string): string[] {
  return [...new Set(SPECIFIERS.flatMap((re) => [...source.matchAll(re)].map((m) => m[1] as string)))];
}

/** The file a relative specifier names, or null for a package or a path that does not exist. */
export function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const found = [`${base}.ts`, join(base, 'index.ts'), base].find((p) => existsSync(p) && statSync(p).isFile());
  return found ?? null;
}

/** The graph of every .ts file under `dirs` (paths relative to `root`). */
export function importGraph(root: string, dirs: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of dirs.flatMap((d) => tsFiles(join(root, d)))) {
    const targets = runtimeSpecifiers(readFileSync(file, 'utf8'))
      .map((s) => resolveImport(file, s))
      .filter((p): p is string => p !== null)
      .map((p) => relative(root, p));
    graph.set(relative(root, file), [...new Set(targets)].sort());
  }
  return graph;
}

/** Every import cycle, each as the files around it (Tarjan's strongly connected components). */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  function visit(node: string): void {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  }

  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
