import type { AlarmSeverity, NotificationPriority } from '../../../common/contracts';

const SEVERITY_ICONS: Record<AlarmSeverity, string> = { critical: '⬣', major: '▲', minor: '◆', warning: '●', info: 'ℹ' };

/** An alarm's severity as a coloured badge: colour and shape differ, so it reads without colour too. */
export function SeverityBadge({ severity }: { severity: AlarmSeverity }) {
  return (
    <span className={`badge-severity sev-${severity}`} data-severity={severity}>
      <span aria-hidden="true">{SEVERITY_ICONS[severity]}</span> {severity}
    </span>
  );
}

/** A notification's priority as a coloured badge. */
export function PriorityBadge({ priority }: { priority: NotificationPriority }) {
  return (
    <span className={`badge-severity prio-${priority}`} data-priority={priority}>
      {priority} priority
    </span>
  );
}
