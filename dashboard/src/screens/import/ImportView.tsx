import { useEffect, useMemo, useState } from 'react';
import { ApiError, api } from '../../api/client';
import { errorText } from '../../api/errors';
import type { Project } from '../../api/types';
import { useSocket } from '../../realtime/socket';
import { TemplateSelect } from '../../templates/TemplateSelect';
import { useTemplates } from '../../templates/use-templates';
import { Card, ErrorLine } from '../../ui/common';
import { fieldOnLine, IMPORT_COLUMNS, type ParsedImport, parseImportCsv } from './import-csv';

/** An import's refusal in the file's terms: each refused row by its line (the API names rows by index). */
function refusal(err: unknown, lines: number[]): string {
  if (err instanceof ApiError && Array.isArray(err.details) && err.details.length > 0) {
    const shown = err.details.slice(0, 10).map((d) => `${fieldOnLine(d.field, lines)}: ${d.problem}`);
    const more = err.details.length > 10 ? `; and ${err.details.length - 10} more` : '';
    return `Nothing was imported. ${shown.join('; ')}${more} (${err.code})`;
  }
  return `Nothing was imported. ${errorText(err)}`;
}

/** The credentials CSV of an import, offered as a download until the user says it is saved: it is not kept anywhere else. */
function CredentialsDownload({ csv, fileName, onDone }: { csv: string; fileName: string; onDone: () => void }) {
  const href = useMemo(() => URL.createObjectURL(new Blob([csv], { type: 'text/csv' })), [csv]);
  useEffect(() => () => URL.revokeObjectURL(href), [href]);
  const count = csv.trimEnd().split('\n').length - 1;
  const download = () => {
    const link = document.createElement('a');
    link.href = href;
    link.download = fileName;
    link.click();
  };
  return (
    <div className="credentials card" data-testid="import-credentials">
      <strong>
        {count === 1 ? '1 device' : `${count} devices`} imported. Download their credentials now: the tokens are shown only once.
      </strong>
      <p className="muted">
        Columns id, name, serial, token: each device logs in to the broker with its id as username and its token as password.
      </p>
      <div className="row">
        <button type="button" className="primary" onClick={download}>
          Download credentials CSV
        </button>
        <button type="button" onClick={onDone}>
          I saved them
        </button>
      </div>
    </div>
  );
}

/**
 * Bulk import (docs/provisioning.md "Bulk import"): a CSV file read in the browser (columns name,
 * serial, tags, description), sent as one JSON request with an optional template; all rows or none.
 * The answer, the credentials CSV, is offered as a download once.
 */
export function ImportView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const { templates } = useTemplates(project.id, epoch);
  const [file, setFile] = useState<{ name: string; parsed: ParsedImport } | null>(null);
  const [templateId, setTemplateId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [credentials, setCredentials] = useState<string | null>(null);
  if (project.role === 'viewer') return <p className="muted">Viewers cannot import devices; an editor, admin or the owner can.</p>;

  const read = async (picked: File | undefined) => {
    setError(null);
    setFile(picked ? { name: picked.name, parsed: parseImportCsv(await picked.text()) } : null);
  };
  const parsed = file?.parsed;
  const rows = parsed && 'rows' in parsed ? parsed : null;

  const start = async () => {
    if (!rows) return;
    setBusy(true);
    setError(null);
    try {
      setCredentials(await api.importDevices({ projectId: project.id, templateId: templateId || null, devices: rows.rows }));
      setFile(null);
    } catch (err) {
      setError(refusal(err, rows.lines));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack">
      {credentials && (
        <CredentialsDownload csv={credentials} fileName={`devices-${project.name}.csv`} onDone={() => setCredentials(null)} />
      )}
      <Card title="Import devices from a CSV file">
        <p className="muted">
          A header line with the columns {IMPORT_COLUMNS.join(', ')} (only name is required; tags separated by ;), then one device a line,
          up to 10,000. Every row is imported, or none: a refused row is named by its line.
        </p>
        <div className="row">
          <label>
            CSV file
            <input type="file" accept=".csv,text/csv" aria-label="CSV file" onChange={(e) => void read(e.target.files?.[0])} />
          </label>
          {(templates?.length ?? 0) > 0 && (
            <TemplateSelect templates={templates} value={templateId} onChange={setTemplateId} ariaLabel="Import template" />
          )}
        </div>
        {parsed && 'error' in parsed && <ErrorLine error={parsed.error} />}
        {rows && (
          <div className="stack" data-testid="import-preview">
            <p>
              {rows.rows.length === 1 ? '1 device' : `${rows.rows.length} devices`} read from {file?.name}
              {templateId ? ', each with the template' : ''}.
            </p>
            <div className="table-scroll">
              <table>
                <thead>
                  <tr>
                    <th>Line</th>
                    <th>Name</th>
                    <th>Serial</th>
                    <th>Tags</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.rows.slice(0, 5).map((row, i) => (
                    <tr key={rows.lines[i]}>
                      <td className="muted">{rows.lines[i]}</td>
                      <td>{row.name}</td>
                      <td>{row.serial ?? '—'}</td>
                      <td>{row.tags?.join(', ') ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="row">
              <button type="button" className="primary" disabled={busy} onClick={() => void start()}>
                {busy ? 'Importing…' : `Import ${rows.rows.length === 1 ? '1 device' : `${rows.rows.length} devices`}`}
              </button>
            </div>
          </div>
        )}
        <ErrorLine error={error} />
      </Card>
    </div>
  );
}
