import { z } from 'zod';

/** The shortest heartbeat timeout a device or template may set: 5 s (each expiry costs the twin a step). */
export const MIN_HEARTBEAT_TIMEOUT_S = 5;
/** The longest: 7 days. */
export const MAX_HEARTBEAT_TIMEOUT_S = 7 * 86_400;

/** A heartbeat timeout in seconds (DESIGN §12); null: the template's, else the service default. */
export const heartbeatTimeoutS = z.int().min(MIN_HEARTBEAT_TIMEOUT_S).max(MAX_HEARTBEAT_TIMEOUT_S).nullable();
