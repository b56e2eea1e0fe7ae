/**
 * A queued step's decision when its turn comes (the shell runs one step at a time, so a step sees
 * every earlier step's outcome): activity and status steps are liveness.ts's, info steps info.ts's,
 * alarm edges alarms.ts's.
 */
import { alarmEdgeStep } from './alarms';
import type { Decision, TwinStep } from './effects';
import { infoStep } from './info';
import { activityStep, healMirror, offlineAt } from './liveness';
import type { TwinState } from './state';
import type { RunConfig } from './version';

export function decideStep(s: TwinState, cfg: RunConfig, step: TwinStep): Decision {
  switch (step.kind) {
    case 'activityAt':
      return activityStep(s, step.at, step.ahead === true);
    case 'offlineAt':
      return offlineAt(s, cfg, step.at, step.reason ?? 'status message');
    case 'healMirror':
      return healMirror(s);
    case 'info':
      return infoStep(s, step.changes, step.at);
    case 'alarmEdge':
      return alarmEdgeStep(s, step.edge, step.now);
  }
}
