import express, { type RequestHandler } from 'express';
import { AppError } from '../../common/errors';

/** Largest JSON body any interface reads. */
export const BODY_MAX_BYTES = '256kb';

/** Deepest nesting of objects and arrays a JSON body may have (the body itself is level 1). */
export const BODY_MAX_DEPTH = 32;

/** True when `value` nests objects or arrays deeper than `max` levels; iterative, so any depth is safe to check. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Only objects and arrays are queued: a bulk body's thousands of strings and numbers cost no allocation.
  const pending: [object, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > max) return true;
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

const depthLimit: RequestHandler = (req, _res, next) => {
  if (nestedDeeperThan(req.body, BODY_MAX_DEPTH)) {
    throw new AppError('VALIDATION_ERROR', `The body nests objects or arrays deeper than ${BODY_MAX_DEPTH} levels`, [
      { field: 'body', problem: `nested deeper than ${BODY_MAX_DEPTH} levels` },
    ]);
  }
  next();
};

/**
 * The JSON body parser of every interface: at most 256 KiB, nested at most 32 levels deep.
 * The external interfaces mount it after authentication and the rate limit, the management
 * interface before its routes. A body it cannot read becomes a 4xx in `toAppError`.
 */
export const jsonBody: RequestHandler[] = [express.json({ limit: BODY_MAX_BYTES }), depthLimit];

/** Largest body of a bulk device import (10,000 rows: docs/provisioning.md "Bulk import"). */
export const IMPORT_BODY_MAX_BYTES = '8mb';

/** The routes whose own, larger, parser reads their body after authentication and the rate limit. */
export const LARGE_BODY_PATHS = new Set(['/api/v1/devices/import']);

/** `jsonBody` for every path but LARGE_BODY_PATHS, which read theirs with `largeJsonBody`. */
export const jsonBodyElsewhere: RequestHandler[] = jsonBody.map(
  (parse): RequestHandler =>
    (req, res, next) =>
      LARGE_BODY_PATHS.has(req.path) ? next() : parse(req, res, next),
);

/** The JSON body parser of a bulk import route: IMPORT_BODY_MAX_BYTES, nested at most 32 levels deep. */
export const largeJsonBody: RequestHandler[] = [express.json({ limit: IMPORT_BODY_MAX_BYTES }), depthLimit];
