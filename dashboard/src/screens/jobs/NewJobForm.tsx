import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { Job } from '../../api/types';
import { ErrorLine, useAction, useLoad } from '../../ui/common';
import type { ProjectTarget } from '../fleet/job-targets';
import { EMPTY_JOB_DRAFT, type JobDraft, jobRequest } from './job-draft';

/**
 * Starts a job on what the fleet screen selected (docs/jobs.md): a command (pin and value) or a
 * firmware update (an image of the one project selected), with its rollout pace, abort rule and
 * TTL. A selection over several projects makes one job per project.
 */
export function NewJobForm(props: {
  selected: string;
  targets: () => Promise<ProjectTarget[]>;
  otaProjectId: string | null;
  onStarted: (jobs: Job[]) => void;
}) {
  const [draft, setDraft] = useState<JobDraft>(EMPTY_JOB_DRAFT);
  const [run, error, busy] = useAction();
  const [nothing, setNothing] = useState(false);
  const images = useLoad(
    async () => (props.otaProjectId && draft.kind === 'ota' ? (await api.firmware(props.otaProjectId)).firmware : []),
    [props.otaProjectId, draft.kind],
  );
  const edit = (change: Partial<JobDraft>) => setDraft({ ...draft, ...change });
  const otaBlocked = draft.kind === 'ota' && !props.otaProjectId;

  const start = (e: FormEvent) => {
    e.preventDefault();
    setNothing(false);
    void run(async () => {
      const targets = await props.targets();
      if (targets.length === 0) return setNothing(true);
      const jobs = await Promise.all(targets.map((t) => api.createJob(jobRequest(draft, t.projectId, t.target))));
      props.onStarted(jobs);
    });
  };

  return (
    <form className="form" data-testid="new-job-form" onSubmit={start}>
      <p className="muted">Run a job on {props.selected}.</p>
      <label>
        Job type
        <select value={draft.kind} onChange={(e) => edit({ kind: e.target.value as JobDraft['kind'] })}>
          <option value="command">Command: write a pin</option>
          <option value="ota">Firmware update (OTA)</option>
        </select>
      </label>
      {draft.kind === 'command' ? (
        <div className="row">
          <label>
            Job pin
            <input required value={draft.pin} onChange={(e) => edit({ pin: e.target.value })} placeholder="V0, D3, A1" />
          </label>
          <label>
            Job value
            <input required value={draft.value} onChange={(e) => edit({ value: e.target.value })} />
          </label>
        </div>
      ) : otaBlocked ? (
        <p className="notice">
          A firmware image belongs to one project: choose the project in the filters (or tick devices of one project).
        </p>
      ) : (
        <label>
          Firmware image
          <select required value={draft.firmwareId} onChange={(e) => edit({ firmwareId: e.target.value })}>
            <option value="">Choose an image</option>
            {images.data?.map((f) => (
              <option key={f.id} value={f.id}>
                {f.name} {f.version}
              </option>
            ))}
          </select>
          {images.data?.length === 0 && (
            <span className="help">No image uploaded to this project yet: upload one on the Firmware page.</span>
          )}
        </label>
      )}
      <div className="row">
        <label>
          At most per minute
          <input
            type="number"
            min={1}
            value={draft.maxPerMinute}
            onChange={(e) => edit({ maxPerMinute: e.target.value })}
            placeholder="all at once"
          />
        </label>
        <label>
          Abort above failed %
          <input
            type="number"
            min={0}
            max={100}
            step="any"
            value={draft.abortPercent}
            onChange={(e) => edit({ abortPercent: e.target.value })}
            placeholder="never"
          />
        </label>
        <label>
          Judged after devices
          <input type="number" min={1} value={draft.minDevices} onChange={(e) => edit({ minDevices: e.target.value })} placeholder="10" />
        </label>
        <label>
          TTL seconds
          <input
            type="number"
            min={1}
            max={2_592_000}
            value={draft.ttlSeconds}
            onChange={(e) => edit({ ttlSeconds: e.target.value })}
            placeholder="86400 (a day)"
          />
        </label>
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={busy || otaBlocked}>
          Start job
        </button>
      </div>
      {nothing && <p className="notice">No device matches in a project where you may run jobs: nothing was started.</p>}
      <ErrorLine error={error} />
    </form>
  );
}
