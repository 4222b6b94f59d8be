// Hooks of the startup gate (first-run setup, unlock) and of the admin's settings screen.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import { api, type IpcCallError } from './client';
import { useChannelMutation, useChannelQuery } from './hooks';

export const useStartupStatus = () => useChannelQuery('startup.status', {});

/** Setup and unlock open the core: every cached answer (the "locked" ones) is refetched. */
function useGateMutation<C extends 'startup.unlock' | 'startup.setup'>(channel: C) {
  const client = useQueryClient();
  return useMutation<ChannelOutput<C>, IpcCallError, ChannelInput<C>>({
    mutationFn: (input) => api[channel](input),
    onSuccess: (status) => {
      client.setQueryData(['startup.status', {}], status);
      return client.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'startup.status' });
    },
    // A refusal can come from a folder changed since the screen read it (an earlier setup's key file
    // found at setup): read it again, so the screen shows what the gate saw.
    onError: () => client.invalidateQueries({ queryKey: ['startup.status', {}] }),
  });
}

export const useStartupUnlock = () => useGateMutation('startup.unlock');
export const useStartupSetup = () => useGateMutation('startup.setup');

export const useAppSettings = (options?: { enabled?: boolean }) => useChannelQuery('settings.get', {}, options);
export const useUpdateSettings = () => useChannelMutation('settings.update', ['settings.get', 'vault.status', 'audit.list']);
export const useSetUpstreamKey = () => useChannelMutation('settings.setUpstreamKey', ['settings.get', 'audit.list']);
export const useBackup = () => useChannelMutation('data.backup', ['audit.list']);
