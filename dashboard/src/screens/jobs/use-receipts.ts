import { useState } from 'react';
import { api } from '../../api/client';
import type { Command } from '../../api/types';
import { useSocket, useSocketEvent } from '../../realtime/socket';
import { useLoad } from '../../ui/common';

/**
 * The command receipts (docs/commands.md) of the commands shown, by id: read once each, then kept
 * live by the `command` events of the project's room (and reread on every reconnect). A receipt that cannot be read is left out.
 */
export function useReceipts(commandIds: readonly string[]): ReadonlyMap<string, Command> {
  const { epoch } = useSocket();
  const key = [...new Set(commandIds)].sort().join(',');
  const read = useLoad(async () => {
    const ids = key.split(',').filter(Boolean);
    const found = await Promise.all(ids.map((id) => api.command(id).catch(() => null)));
    return new Map(found.filter((c): c is Command => c !== null).map((c) => [c.id, c]));
  }, [key, epoch]);
  const [live, setLive] = useState<ReadonlyMap<string, Command>>(new Map());
  useSocketEvent('command', (command) => {
    if (commandIds.includes(command.id)) setLive((m) => new Map(m).set(command.id, command));
  });
  const receipts = new Map(read.data);
  for (const [id, command] of live) receipts.set(id, command);
  return receipts;
}
