import { useState, type FormEvent } from 'react';
import type { Template, TemplateBody } from '../../api/types';
import { Card } from '../../ui/common';
import { PinRows } from './PinRows';
import { bodyOf, draftOf, HEARTBEAT_MAX_S, HEARTBEAT_MIN_S } from './template-draft';

/** Creates or edits a template: name, description, heartbeat timeout and its pins. */
export function TemplateForm(props: {
  editing: Template | null;
  onSave: (body: TemplateBody) => Promise<void>;
  onCancel: () => void;
  error: string | null;
  busy: boolean;
}) {
  const [draft, setDraft] = useState(() => draftOf(props.editing));
  const [problem, setProblem] = useState<string | null>(null);
  /** Any edit clears the form's own problem line: it named what was typed before. */
  const change = (next: typeof draft) => (setDraft(next), setProblem(null));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const checked = bodyOf(draft);
    if ('problem' in checked) return setProblem(checked.problem);
    setProblem(null);
    void props.onSave(checked.body);
  };

  const shown = problem ?? props.error;
  return (
    <Card title={props.editing ? `Edit ${props.editing.name}` : 'New template'}>
      <form className="form wide" onSubmit={submit} data-testid="template-form">
        <label>
          Name
          <input
            aria-label="Template name"
            required
            maxLength={100}
            value={draft.name}
            onChange={(e) => change({ ...draft, name: e.target.value })}
          />
        </label>
        <label>
          Description
          <input
            aria-label="Template description"
            maxLength={1000}
            value={draft.description}
            onChange={(e) => change({ ...draft, description: e.target.value })}
          />
        </label>
        <label>
          Heartbeat timeout (seconds; empty: the service's default)
          <input
            aria-label="Heartbeat timeout"
            type="number"
            min={HEARTBEAT_MIN_S}
            max={HEARTBEAT_MAX_S}
            step={1}
            value={draft.heartbeat}
            onChange={(e) => change({ ...draft, heartbeat: e.target.value })}
          />
          <small className="help">A device of this template with no message for this long goes offline, unless it has its own.</small>
        </label>
        <PinRows rows={draft.pins} onChange={(pins) => change({ ...draft, pins })} />
        {shown && (
          <p className="error" role="alert">
            {shown}
          </p>
        )}
        <div className="row">
          <button type="submit" className="primary" disabled={props.busy}>
            Save template
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Card>
  );
}
