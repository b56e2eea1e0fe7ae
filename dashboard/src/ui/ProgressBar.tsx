/** A bar filled to `value` of `max`, read out by `label`; `full` colours it as at its limit. */
export function ProgressBar({ value, max, label, full = false }: { value: number; max: number; label: string; full?: boolean }) {
  const share = value < max ? value / max : value > 0 ? 1 : 0;
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={Math.min(value, max)}
    >
      <div className={full ? 'bar full' : 'bar'} style={{ width: `${share * 100}%` }} />
    </div>
  );
}
