/** A positive integer from the environment, or `fallback` when unset; a bad value stops the bench naming it. */
export function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer (got ${text})`);
  return value;
}
