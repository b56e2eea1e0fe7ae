import { useMemo } from 'react';
import { api } from '../api/client';
import type { Template } from '../api/types';
import { useLoad } from '../ui/common';

/** A project's templates (one read; `epoch` reloads them) and each one's name by id. */
export function useTemplates(projectId: string | undefined, epoch = 0) {
  const list = useLoad(async () => (projectId ? (await api.templates(projectId)).templates : []), [projectId, epoch]);
  const byId = useMemo(() => new Map((list.data ?? []).map((t) => [t.id, t])), [list.data]);
  return {
    templates: list.data as Template[] | undefined,
    error: list.error,
    reload: list.reload,
    /** The template's name; "template" for one not (or no longer) in the list. */
    nameOf: (id: string | null | undefined): string => (id ? (byId.get(id)?.name ?? 'template') : ''),
    byId,
  };
}
