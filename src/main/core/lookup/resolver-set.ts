// Which resolver answers which lookups. Sandbox keys always get the sample data; live account
// lookups go to the organization's directory; live credit reports are answered from the sample
// data until their live source is configured (a later issue adds the remote resolver and settings).
import type { KeyEnvironment } from '../keys/secrets';
import type { AccountResolver, CreditReportResolver } from '../resolvers/resolver';

export interface ResolverSet {
  accounts(environment: KeyEnvironment): AccountResolver;
  creditReports(environment: KeyEnvironment): CreditReportResolver;
}

export function defaultResolverSet(resolvers: {
  sandbox: AccountResolver & CreditReportResolver;
  directory: AccountResolver;
}): ResolverSet {
  return {
    accounts: (environment) => (environment === 'sandbox' ? resolvers.sandbox : resolvers.directory),
    creditReports: () => resolvers.sandbox,
  };
}
