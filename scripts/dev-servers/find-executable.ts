import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH, then in `extraDirs`; null when there is none. */
export function findExecutable(name: string, extraDirs: string[] = []): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...extraDirs];
  return dirs.map((dir) => join(dir, name)).find(isExecutable) ?? null;
}
