/** Tags as typed in the console: comma separated, trimmed, empties dropped. */
export const parseTags = (text: string): string[] =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
