import { useState } from 'react';
import { api } from '../../api/client';
import { navigate } from '../../router';
import { Card, EmptyRow, ErrorLine, timeAgo, useLoad } from '../../ui/common';
import { ProjectSelect } from '../../ui/ProjectSelect';
import { sizeText } from './size-text';
import { UploadFirmwareForm } from './UploadFirmwareForm';

/** A project's firmware images (version, size, sha256) and, for editors, the upload; an OTA job on the Fleet page sends one. */
export function FirmwareScreen() {
  const projects = useLoad(() => api.projects(), []);
  const [picked, setPicked] = useState(() => new URLSearchParams(location.search).get('projectId') ?? '');
  const projectId = picked || projects.data?.projects[0]?.id || '';
  const project = projects.data?.projects.find((p) => p.id === projectId);
  const images = useLoad(async () => (projectId ? (await api.firmware(projectId)).firmware : []), [projectId]);
  const pick = (id: string) => (setPicked(id), navigate(`/firmware?projectId=${id}`));

  return (
    <div className="stack">
      <h1>Firmware</h1>
      <Card
        title={`Images (${images.data?.length ?? 0})`}
        actions={<ProjectSelect projects={projects.data?.projects} value={projectId} onChange={pick} ariaLabel="Firmware of project" />}
      >
        <ErrorLine error={projects.error ?? images.error} />
        {projects.data?.projects.length === 0 && <p className="muted">No projects yet: firmware images belong to a project.</p>}
        <div className="table-scroll">
          <table data-testid="firmware-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Version</th>
                <th>Size</th>
                <th>SHA-256</th>
                <th>Uploaded</th>
              </tr>
            </thead>
            <tbody>
              {images.data?.map((f) => (
                <tr key={f.id} data-testid="firmware-row">
                  <td>{f.name}</td>
                  <td data-testid="firmware-version">{f.version}</td>
                  <td title={`${f.size} bytes`}>{sizeText(f.size)}</td>
                  <td>
                    <code className="hash" data-testid="firmware-sha256">
                      {f.sha256}
                    </code>
                  </td>
                  <td className="muted">{timeAgo(f.createdAt)}</td>
                </tr>
              ))}
              {images.data?.length === 0 && <EmptyRow columns={5} text="No firmware images in this project yet." />}
            </tbody>
          </table>
        </div>
        {project && project.role !== 'viewer' && <UploadFirmwareForm projectId={project.id} onUploaded={() => images.reload()} />}
      </Card>
    </div>
  );
}
