// Which resolver answers which lookups (decisions "Where lookups are resolved"). Sandbox keys always
// get the sample data. Live lookups go where the admin's setting for the product points: the
// organization's directory (the default) or the remote API. The choice is read per lookup, so a
// change in the settings applies to the next request: a lookup may choose on the setting as last
// read (`speculative`), and then confirms its choice before it resolves (lookup-service.ts).
import type { KeyEnvironment } from '../keys/secrets';
import type { Settings } from '../settings/settings';
import { REMOTE_NOT_SET_UP, UpstreamError, type AccountResolver, type CreditReportResolver } from '../resolvers/resolver';

export interface ResolverSet {
  /** `speculative`: on the setting as last read, without checking that no other process changed it. */
  accounts(environment: KeyEnvironment, speculative?: boolean): AccountResolver;
  creditReports(environment: KeyEnvironment, speculative?: boolean): CreditReportResolver;
}

export type ResolverMode = 'directory' | 'remote';

export function resolverSet(resolvers: {
  settings: Pick<Settings, 'get' | 'peek'>;
  sandbox: AccountResolver & CreditReportResolver;
  directoryAccounts: AccountResolver;
  directoryCreditReports: CreditReportResolver;
  /** The remote resolver; null until one is composed (then a `remote` setting answers GE500). */
  remote: (AccountResolver & CreditReportResolver) | null;
}): ResolverSet {
  const { settings, sandbox } = resolvers;
  const remote = resolvers.remote ?? unconfiguredRemote;
  const mode = (key: 'resolver.cbu' | 'resolver.informes', speculative = false) => (speculative ? settings.peek(key) : settings.get(key));
  return {
    accounts: (environment, speculative) =>
      environment === 'sandbox' ? sandbox : mode('resolver.cbu', speculative) === 'remote' ? remote : resolvers.directoryAccounts,
    creditReports: (environment, speculative) =>
      environment === 'sandbox' ? sandbox : mode('resolver.informes', speculative) === 'remote' ? remote : resolvers.directoryCreditReports,
  };
}

/** A `remote` setting without a remote resolver: the source cannot answer (503 GE500, no credit). */
const unconfiguredRemote: AccountResolver & CreditReportResolver = {
  name: 'remote',
  resolveAccount: () => Promise.reject(new UpstreamError('the remote resolver is not configured', 60, REMOTE_NOT_SET_UP)),
  resolveCreditReport: () => Promise.reject(new UpstreamError('the remote resolver is not configured', 60, REMOTE_NOT_SET_UP)),
};
