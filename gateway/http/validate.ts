import type { z } from 'zod';
import { AppError } from '../../common/errors';

/** Parses untrusted input with a zod schema; a failure is a 400 VALIDATION_ERROR listing each problem. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'params'): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({
    field: [where, ...issue.path.map(String)].join('.'),
    problem: issue.message,
  }));
  throw new AppError('VALIDATION_ERROR', `Invalid ${where}: ${details.map((d) => `${d.field} ${d.problem}`).join('; ')}`, details);
}
