import { useEffect, useState } from 'react';

const TYPING_PAUSE_MS = 300;

/** The value once it has stopped changing for a moment: a search asks the API once per pause in typing. */
export function useSettled<T>(value: T): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}
