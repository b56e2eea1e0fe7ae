/**
 * The heartbeat rule's arithmetic (DESIGN §6: offline when no message came within the heartbeat
 * timeout), in one place for the twin, which decides (workflows/twin/liveness.ts), and the
 * liveness watch activity, which waits for it (activities/mirror.ts `awaitSilence`). No Node
 * imports: the workflow bundle imports it.
 */
import { later } from './iso-time';

/** A device's heartbeat timeout (DESIGN §12): its own, else its template's (`set`), else the service default. */
export const heartbeatTimeoutOf = (set: number | null | undefined, defaultS: number): number => set ?? defaultS;

/** When a device last heard from at `lastHeardMs` goes offline by silence (epoch ms). */
export const silenceDeadline = (lastHeardMs: number, heartbeatTimeoutS: number): number => lastHeardMs + heartbeatTimeoutS * 1000;

/** When the device was last heard from (ISO 8601): the later of what the twin knew and what the mirror holds now. */
export const lastHeard = (twinSince: string, mirrorLastSeen: string | null): string => later(twinSince, mirrorLastSeen) ?? twinSince;
