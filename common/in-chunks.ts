/**
 * Runs `step` over `items` a chunk at a time: the items of a chunk side by side, the chunks one
 * after another. Bounds what one bulk request keeps in flight (Redis commands, broker calls) while
 * still sending a chunk's commands together.
 */
export async function inChunks<T>(items: readonly T[], size: number, step: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    await Promise.all(items.slice(start, start + size).map(step));
  }
}
