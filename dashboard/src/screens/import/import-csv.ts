import type { ImportRow } from '../../api/types';

/** The columns an import CSV may have (docs/provisioning.md "Bulk import"); `name` is required. */
export const IMPORT_COLUMNS = ['name', 'serial', 'tags', 'description'] as const;
type Column = (typeof IMPORT_COLUMNS)[number];

/** The rows one import takes (the API's limit). */
export const IMPORT_MAX_ROWS = 10_000;

/** A CSV read into rows, each with the line it starts on (for errors the API names by row). */
export type ParsedImport = { rows: ImportRow[]; lines: number[] } | { error: string };

/** RFC 4180 records: fields split at commas, quoted fields may hold commas, quotes ("") and line breaks. */
function records(text: string): { fields: string[]; line: number }[] {
  const out: { fields: string[]; line: number }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const endRecord = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0] !== '') out.push({ fields, line: start });
    fields = [];
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') fields.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else field += c;
  }
  if (field !== '' || fields.length > 0) endRecord();
  return out;
}

/**
 * Reads an import CSV in the browser: a header line naming its columns (any order, any case), then
 * one device a line. `tags` holds the device's tags separated by `;`. Empty cells are left out, so
 * the API applies its defaults. The API checks each row again and names the row it refuses.
 */
export function parseImportCsv(text: string): ParsedImport {
  const [header, ...body] = records(text.replace(/^\uFEFF/, ''));
  if (!header) return { error: 'The file is empty.' };
  const columns = header.fields.map((h) => h.trim().toLowerCase());
  const unknown = columns.filter((c) => !(IMPORT_COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0) return { error: `Unknown column(s): ${unknown.join(', ')}. The columns are ${IMPORT_COLUMNS.join(', ')}.` };
  if (!columns.includes('name')) return { error: 'The header line has no name column.' };
  if (body.length === 0) return { error: 'The file has a header line but no devices.' };
  if (body.length > IMPORT_MAX_ROWS) return { error: `The file has ${body.length} devices; one import takes at most ${IMPORT_MAX_ROWS}.` };
  const rows = body.map(({ fields }) => {
    const cell = (column: Column) => fields[columns.indexOf(column)]?.trim() ?? '';
    const tags = cell('tags')
      .split(';')
      .map((t) => t.trim())
      .filter(Boolean);
    return {
      name: cell('name'),
      ...(cell('serial') ? { serial: cell('serial') } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(cell('description') ? { description: cell('description') } : {}),
    };
  });
  return { rows, lines: body.map((r) => r.line) };
}

/** `body.devices.12.serial` (the API's field of a refused row) as the file's line, else the field as it is. */
export function fieldOnLine(field: string, lines: number[]): string {
  const m = /^body\.devices\.(\d+)(?:\.(\w+))?$/.exec(field);
  const line = m ? lines[Number(m[1])] : undefined;
  return m && line !== undefined ? `line ${line}${m[2] ? ` (${m[2]})` : ''}` : field;
}
