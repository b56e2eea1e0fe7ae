/** One line of a scenario's table: what was checked, the verdict, and the figures behind it. */
export type Verdict = 'ok' | 'FAIL' | 'warn' | 'info';

export interface Row {
  check: string;
  verdict: Verdict;
  figures: string;
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Prints rows as one table, the figures wrapped under their column. */
export function formatTable(title: string, rows: readonly Row[]): string {
  const checkWidth = Math.max(5, ...rows.map((r) => r.check.length));
  const figureWidth = 100;
  const wrap = (text: string): string[] => {
    const lines: string[] = [];
    for (const part of text.split('\n')) {
      let line = '';
      for (const word of part.split(' ')) {
        if (line && line.length + 1 + word.length > figureWidth) {
          lines.push(line);
          line = word;
        } else line = line ? `${line} ${word}` : word;
      }
      lines.push(line);
    }
    return lines;
  };
  const rule = `+${'-'.repeat(checkWidth + 2)}+------+${'-'.repeat(figureWidth + 2)}+`;
  const out = [title, rule, `| ${'check'.padEnd(checkWidth)} | ${'    '} | ${'figures'.padEnd(figureWidth)} |`, rule];
  for (const row of rows) {
    wrap(row.figures).forEach((line, i) => {
      const check = i === 0 ? row.check : '';
      const verdict = i === 0 ? row.verdict : '';
      out.push(`| ${check.padEnd(checkWidth)} | ${verdict.padEnd(4)} | ${line.padEnd(figureWidth)} |`);
    });
  }
  out.push(rule);
  return out.join('\n');
}
