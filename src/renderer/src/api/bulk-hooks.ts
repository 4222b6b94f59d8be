// React Query hooks of the bulk channels. A running job is polled (its progress comes from the main
// process); when a run ends, the balance and the history are refreshed since it spent credits.
import { useEffect, useRef } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import type { Channel, ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import { api, IpcCallError } from './client';

const POLL_RUNNING_MS = 500;
const POLL_LIST_MS = 1_500;
const AFTER_RUN: readonly Channel[] = ['bulk.list', 'bulk.get', 'bulk.results', 'balance.get', 'history.list', 'balance.dailyConsumption'];

function invalidate(client: QueryClient, channels: readonly Channel[]): Promise<void> {
  return Promise.all(channels.map((channel) => client.invalidateQueries({ queryKey: [channel] }))).then(() => undefined);
}

export function useBulkJobs() {
  return useQuery<ChannelOutput<'bulk.list'>, IpcCallError>({
    queryKey: ['bulk.list', {}],
    queryFn: () => api['bulk.list']({}),
    refetchInterval: (query) => (query.state.data?.jobs.some((j) => j.active) ? POLL_LIST_MS : false),
  });
}

export function useBulkJob(id: string | null) {
  const client = useQueryClient();
  const query = useQuery<ChannelOutput<'bulk.get'>, IpcCallError>({
    queryKey: ['bulk.get', { id }],
    queryFn: () => api['bulk.get']({ id: id ?? '' }),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.job.active ? POLL_RUNNING_MS : false),
  });
  // A run that just ended spent credits and wrote history: refresh what shows them.
  const wasActive = useRef(false);
  const active = query.data?.job.active ?? false;
  useEffect(() => {
    if (wasActive.current && !active) void invalidate(client, AFTER_RUN);
    wasActive.current = active;
  }, [active, client]);
  return query;
}

/** A job's rows with their outcomes, a page at a time: each next page starts after the last row shown. */
export function useBulkResults(id: string, enabled: boolean) {
  return useInfiniteQuery<ChannelOutput<'bulk.results'>, IpcCallError, InfiniteData<ChannelOutput<'bulk.results'>, number>, readonly unknown[], number>({
    queryKey: ['bulk.results', { id }],
    queryFn: ({ pageParam }) => api['bulk.results']({ id, after: pageParam }),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next ?? undefined,
    enabled,
  });
}

function useBulkMutation<C extends Channel>(channel: C) {
  const client = useQueryClient();
  return useMutation<ChannelOutput<C>, IpcCallError, ChannelInput<C>>({
    mutationFn: (input) => api[channel](input),
    onSettled: () => invalidate(client, AFTER_RUN),
  });
}

export const useCreateBulkJob = () => useBulkMutation('bulk.create');
export const useStartBulkJob = () => useBulkMutation('bulk.start');
export const usePauseBulkJob = () => useBulkMutation('bulk.pause');
export const useCancelBulkJob = () => useBulkMutation('bulk.cancel');
/** Reads only: nothing to refresh afterwards. */
export const useExportBulkJob = () =>
  useMutation<ChannelOutput<'bulk.exportCsv'>, IpcCallError, ChannelInput<'bulk.exportCsv'>>({ mutationFn: (input) => api['bulk.exportCsv'](input) });
