import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { Firmware } from '../../api/types';
import { ErrorLine, useAction } from '../../ui/common';

/** Uploads an image file to a project with its name and version (`POST /firmware`, the file as the body). */
export function UploadFirmwareForm({ projectId, onUploaded }: { projectId: string; onUploaded: (f: Firmware) => void }) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [run, error, busy] = useAction();

  const upload = (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    void run(async () => {
      onUploaded(await api.uploadFirmware({ projectId, name: name.trim() || file.name, version: version.trim() }, file));
      setName('');
      setVersion('');
      setFile(null);
      setFormKey((k) => k + 1);
    });
  };

  return (
    <form key={formKey} className="row" onSubmit={upload} data-testid="firmware-upload">
      <input type="file" aria-label="Firmware file" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      <input
        aria-label="Firmware version"
        placeholder="Version, e.g. 2.0.0"
        required
        maxLength={64}
        value={version}
        onChange={(e) => setVersion(e.target.value)}
      />
      <input
        aria-label="Firmware name"
        placeholder="Name (the file's when empty)"
        maxLength={100}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" className="primary" disabled={busy || !file}>
        {busy ? 'Uploading…' : 'Upload'}
      </button>
      <ErrorLine error={error} />
    </form>
  );
}
