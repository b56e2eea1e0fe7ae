import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface PinoLine {
  level?: number;
  msg?: string;
  err?: { message?: string } | string;
}

const PINO_LEVELS: Record<number, string> = { 40: 'warn', 50: 'error', 60: 'fatal' };
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes this strips
const ANSI = /\x1b\[[0-9;]*m/g;
/** Ids and numbers that make otherwise equal lines distinct. */
const VARYING = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+/gi;
/** A line of the Temporal SDK core's own logger: `<ISO time>  WARN <target>: <message>`. */
const CORE_LINE = /^\d{4}-\d\d-\d\dT\S+\s+(WARN|ERROR)\s+(.*)$/;
/** Stack frames, carets and source excerpts under an uncaught error: part of the line above. */
const CONTINUATION = /^(\s+at |\s*\^|\s*$|\s{4,}|\/.*:\d+$|Node\.js v)/;

function pino(line: string): string | null {
  let entry: PinoLine;
  try {
    entry = JSON.parse(line) as PinoLine;
  } catch {
    return null;
  }
  const err = typeof entry.err === 'string' ? entry.err : entry.err?.message;
  return `${PINO_LEVELS[entry.level ?? 0] ?? 'log'}: ${entry.msg ?? ''}${err ? ` (${err})` : ''}`;
}

function kind(raw: string): string | null {
  const line = raw.replace(ANSI, '');
  if (CONTINUATION.test(line) || line.startsWith('Device Data Service listening')) return null;
  const core = CORE_LINE.exec(line);
  const text = pino(line) ?? (core ? `temporal core ${core[1]?.toLowerCase()}: ${core[2]}` : `stderr: ${line}`);
  return text.replace(VARYING, '#').slice(0, 220);
}

/** Each kind of line with its count, most frequent first. */
function tally(lines: string[], classify: (line: string) => string | null, top: number): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const key = classify(line);
    if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return ['nothing to report'];
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([msg, n]) => `${n} × ${msg}`);
}

/** The service's log (LOG_LEVEL=warn), boiled down. */
export async function summarizeLog(file: string, top = 8): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return tally(text.split('\n'), kind, top);
}

/** Routine broker lines: clients coming and going. */
const BROKER_ROUTINE =
  /New connection from|New client connected|closed its connection|disconnected|^\s*$|should not be run as root|Opening ipv|mosquitto version|Config loaded|Loading plugin/;

/** What the broker started in `dir` logged besides clients coming and going (e.g. dropped messages). */
export async function summarizeBrokerLog(dir: string, top = 5): Promise<string[]> {
  const brokerDirs = (await readdir(dir)).filter((name) => name.startsWith('mosquitto-'));
  const texts = await Promise.all(brokerDirs.map((d) => readFile(join(dir, d, 'mosquitto.log'), 'utf8').catch(() => '')));
  const classify = (line: string): string | null =>
    BROKER_ROUTINE.test(line)
      ? null
      : line
          .replace(/^\S+: /, '')
          .replace(VARYING, '#')
          .slice(0, 220);
  return tally(texts.join('\n').split('\n'), classify, top);
}
