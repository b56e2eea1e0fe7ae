import { useId } from 'react';
import type { Template } from '../api/types';

/** Picks one of the project's templates, or none (`''`); with `label`, shown above it. */
export function TemplateSelect(props: {
  templates: readonly Template[] | undefined;
  value: string;
  onChange: (templateId: string) => void;
  ariaLabel: string;
  /** A visible label above the select. */
  label?: string;
  /** What "no template" reads as (default "No template"). */
  noneLabel?: string;
  disabled?: boolean;
}) {
  const { templates = [], value } = props;
  const id = useId();
  const select = (
    <select id={id} aria-label={props.ariaLabel} value={value} disabled={props.disabled} onChange={(e) => props.onChange(e.target.value)}>
      <option value="">{props.noneLabel ?? 'No template'}</option>
      {value && !templates.some((t) => t.id === value) && <option value={value}>template</option>}
      {templates.map((t) => (
        <option key={t.id} value={t.id}>
          {t.name}
        </option>
      ))}
    </select>
  );
  if (!props.label) return select;
  return (
    <div className="field labelled">
      <label htmlFor={id}>{props.label}</label>
      {select}
    </div>
  );
}
