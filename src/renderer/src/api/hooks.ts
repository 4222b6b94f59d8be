// React Query hooks, one per channel. Query keys are `[channel, input]`, so a mutation invalidates
// every cached page/filter of a channel with `{ queryKey: [channel] }`.
import { screenTimeZone } from '../lib/time-zone';
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Channel, ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import type { ProductSlug } from '../../../shared/api/common';
import { api, IpcCallError } from './client';

/** `refetchInterval` also runs while the window is hidden or minimized (React Query pauses it otherwise). */
type QueryOptions = { enabled?: boolean; refetchInterval?: number | false };

export function useChannelQuery<C extends Channel>(channel: C, input: ChannelInput<C>, options: QueryOptions & { keepPrevious?: boolean } = {}) {
  return useQuery<ChannelOutput<C>, IpcCallError>({
    queryKey: [channel, input],
    queryFn: () => api[channel](input),
    enabled: options.enabled,
    refetchInterval: options.refetchInterval,
    refetchIntervalInBackground: options.refetchInterval ? true : undefined,
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
  });
}

function invalidate(client: QueryClient, channels: readonly Channel[]): Promise<void> {
  return Promise.all(channels.map((channel) => client.invalidateQueries({ queryKey: [channel] }))).then(() => undefined);
}

const AFTER_LOOKUP: readonly Channel[] = ['balance.get', 'history.list', 'balance.dailyConsumption'];
const AFTER_KEYS: readonly Channel[] = ['keys.list', 'audit.list', 'vault.status'];
const AFTER_VAULT: readonly Channel[] = ['vault.status', 'keys.list'];
const AFTER_USERS: readonly Channel[] = ['users.list', 'audit.list', 'session.get'];

// ---- queries ------------------------------------------------------------------------------------

export const useSession = (options?: QueryOptions) => useChannelQuery('session.get', {}, options);
export const useBalance = () => useChannelQuery('balance.get', {});
// The chart's days are the screen's: a lookup at 23:50 here counts for today, not for tomorrow in UTC.
export const useDailyConsumption = (product: ProductSlug, days = 30) =>
  useChannelQuery('balance.dailyConsumption', { product, days, timeZone: screenTimeZone() });
export const useHistory = (input: ChannelInput<'history.list'>, options?: QueryOptions) => useChannelQuery('history.list', input, { ...options, keepPrevious: true });
export const useKeys = (options?: QueryOptions) => useChannelQuery('keys.list', {}, options);
export const useAudit = (input: ChannelInput<'audit.list'> = {}, options?: QueryOptions) => useChannelQuery('audit.list', input, options);
export const useUsers = (options?: QueryOptions) => useChannelQuery('users.list', {}, options);
export const useVaultStatus = (options?: QueryOptions) => useChannelQuery('vault.status', {}, options);

// ---- mutations ----------------------------------------------------------------------------------

type AnswerBody<C extends 'lookup.account' | 'lookup.creditReport'> = ChannelOutput<C>['body'];
type SuccessBody<C extends 'lookup.account' | 'lookup.creditReport'> = Extract<AnswerBody<C>, { success: true }>;

/** A lookup answers `{status, body}`; an error body becomes a thrown IpcCallError (with the credits left). */
function unwrapAnswer<C extends 'lookup.account' | 'lookup.creditReport'>(answer: ChannelOutput<C>): SuccessBody<C> {
  const body = answer.body as AnswerBody<C>;
  if (body.success) return body as SuccessBody<C>;
  const failed = body as Extract<AnswerBody<C>, { success: false }>;
  throw new IpcCallError(failed.error.code, failed.error.message, answer.status, failed.credits_remaining);
}

export function useLookupAccount() {
  const client = useQueryClient();
  return useMutation<SuccessBody<'lookup.account'>, IpcCallError, ChannelInput<'lookup.account'>>({
    mutationFn: async (input) => unwrapAnswer<'lookup.account'>(await api['lookup.account'](input)),
    // Invalid and not-found lookups take a credit too: refresh on either outcome.
    onSettled: () => invalidate(client, AFTER_LOOKUP),
  });
}

export function useCreditReport() {
  const client = useQueryClient();
  return useMutation<SuccessBody<'lookup.creditReport'>, IpcCallError, ChannelInput<'lookup.creditReport'>>({
    mutationFn: async (input) => unwrapAnswer<'lookup.creditReport'>(await api['lookup.creditReport'](input)),
    onSettled: () => invalidate(client, AFTER_LOOKUP),
  });
}

export function useChannelMutation<C extends Channel>(channel: C, invalidates: readonly Channel[]) {
  const client = useQueryClient();
  return useMutation<ChannelOutput<C>, IpcCallError, ChannelInput<C>>({
    mutationFn: (input) => api[channel](input),
    onSuccess: () => invalidate(client, invalidates),
    onError: () => (invalidates.includes('vault.status') ? invalidate(client, ['vault.status']) : undefined),
  });
}

export const usePurchaseCredits = () => useChannelMutation('credits.purchase', ['balance.get', 'audit.list']);
export const useCreateKey = () => useChannelMutation('keys.create', AFTER_KEYS);
export const useRotateKey = () => useChannelMutation('keys.rotate', AFTER_KEYS);
export const useRevokeKey = () => useChannelMutation('keys.revoke', AFTER_KEYS);
export const useRevealKey = () => useChannelMutation('keys.reveal', AFTER_KEYS);
export const useAddUser = () => useChannelMutation('users.add', AFTER_USERS);
export const useSetUserRole = () => useChannelMutation('users.setRole', AFTER_USERS);
export const useExportHistory = () => useChannelMutation('history.exportCsv', []);
export const useVaultUnlock = () => useChannelMutation('vault.unlock', AFTER_VAULT);
export const useVaultLock = () => useChannelMutation('vault.lock', AFTER_VAULT);
