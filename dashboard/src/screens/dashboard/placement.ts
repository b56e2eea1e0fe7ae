import type { Layout } from '../../api/types';

/** The dashboard grid's width in columns (docs/console.md "Dashboard grid"). */
export const GRID_COLUMNS = 12;

const overlaps = (a: Layout, b: Layout): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Where a new widget of `size` goes: the first free slot reading row by row, left to right, so a
 * dashboard fills across before it grows down. A widget wider than the grid is narrowed to it.
 */
export function firstFreeSlot(taken: readonly Layout[], size: { w: number; h: number }): Layout {
  const w = Math.min(Math.max(1, size.w), GRID_COLUMNS);
  const h = Math.max(1, size.h);
  const bottom = Math.max(0, ...taken.map((l) => l.y + l.h));
  for (let y = 0; y <= bottom; y++) {
    for (let x = 0; x + w <= GRID_COLUMNS; x++) {
      const box = { x, y, w, h };
      if (!taken.some((l) => overlaps(l, box))) return box;
    }
  }
  return { x: 0, y: bottom, w, h };
}

/**
 * The one-column layout of a narrow screen: the widgets in reading order (row, then column), each
 * as tall as on the wide grid. Shown only; a narrow screen never saves it.
 */
export function oneColumn<T extends { i: string } & Layout>(items: readonly T[]): T[] {
  let y = 0;
  return [...items]
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map((item) => {
      const placed = { ...item, x: 0, y, w: 1 };
      y += item.h;
      return placed;
    });
}
