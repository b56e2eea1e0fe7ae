import { useEffect, useEffectEvent, useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import { errorText } from '../api/errors';

/**
 * Loads `load()` on mount and whenever `deps` change; exposes data, error (`notFound` when the API
 * answered 404: the thing is gone or not the caller's) and a reload. `load` is a new closure on
 * every render, so `deps` (what it reads), not `load` itself, decide when to load again: it is an
 * Effect Event, which always runs the latest render's `load` (no stale values) without being a dependency.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: string | null; notFound: boolean; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<{ text: string; notFound: boolean } | null>(null);
  const [tick, setTick] = useState(0);
  const fetchNow = useEffectEvent(load);
  useEffect(() => {
    let live = true;
    fetchNow().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (err: unknown) => live && setError({ text: errorText(err), notFound: err instanceof ApiError && err.status === 404 }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error: error?.text ?? null, notFound: error?.notFound ?? false, reload: () => setTick((t) => t + 1) };
}

export function ErrorLine({ error }: { error: string | null | undefined }) {
  return error ? (
    <p className="error" role="alert">
      {error}
    </p>
  ) : null;
}

/** Runs an async action, keeping its error for display next to the control. */
export function useAction(): [(fn: () => Promise<unknown>) => Promise<void>, string | null, boolean] {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return [run, error, busy];
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return (
    <button type="button" className="small" onClick={copy}>
      {done ? 'Copied' : label}
    </button>
  );
}

export function Secret({ label, value }: { label: string; value: string }) {
  return (
    <div className="secret">
      <span className="muted">{label}</span>
      <code data-testid={`secret-${label}`}>{value}</code>
      <CopyButton text={value} />
    </div>
  );
}

export function Card({ title, children, actions }: { title: ReactNode; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card">
      <header>
        <h2>{title}</h2>
        <div className="actions">{actions}</div>
      </header>
      {children}
    </section>
  );
}

export function timeAgo(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return new Date(iso).toLocaleString();
}

/** The one row of a table with nothing to list: says why, and what to do about it. */
export function EmptyRow({ columns, text }: { columns: number; text: string }) {
  return (
    <tr className="empty-row">
      <td colSpan={columns} className="empty">
        {text}
      </td>
    </tr>
  );
}
