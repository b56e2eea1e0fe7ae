import type { Project } from '../api/types';

/** Picks one of the user's projects; with `allLabel`, the empty value stands for all of them. */
export function ProjectSelect(props: {
  projects: readonly Project[] | undefined;
  value: string;
  onChange: (projectId: string) => void;
  ariaLabel: string;
  allLabel?: string;
}) {
  return (
    <select aria-label={props.ariaLabel} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
      {props.allLabel !== undefined && <option value="">{props.allLabel}</option>}
      {props.projects?.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
    </select>
  );
}
