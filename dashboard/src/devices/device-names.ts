import { useMemo } from 'react';
import { api } from '../api/client';
import { useLoad } from '../ui/common';

/**
 * The names of the devices a screen shows records of (widgets, rules, alarms): read one by one,
 * so a project of thousands of devices costs only those shown. A device that is gone reads as "device".
 */
export function useDeviceNames(ids: readonly string[], epoch = 0): (id: string) => string {
  const key = [...new Set(ids)].sort().join(',');
  const names = useLoad(async () => {
    const found = await Promise.all(
      key
        .split(',')
        .filter(Boolean)
        .map((id) =>
          api.device(id).then(
            (d) => [id, d.name] as const,
            () => [id, 'device'] as const,
          ),
        ),
    );
    return new Map(found);
  }, [key, epoch]);
  return useMemo(() => (id: string) => names.data?.get(id) ?? 'device', [names.data]);
}
