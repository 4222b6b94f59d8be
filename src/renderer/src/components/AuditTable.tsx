// The audit trail (audit.list): when, who, the action in words, and what it was about.
import { useState } from 'react';
import type { ApiKeyViewDto, UserView } from '../../../shared/ipc/contract';
import { useAudit } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import { isPlainObject } from '../lib/format';
import { Card, EmptyState, ErrorBanner, SkeletonRows } from './ui';
import { IconShield } from './Icons';
import { Segmented } from './Segmented';

type Filter = 'all' | 'api_key' | 'user' | 'credits';

export function AuditTable({ keys = [], users = [], initialFilter = 'all' }: { keys?: ApiKeyViewDto[]; users?: UserView[]; initialFilter?: Filter }) {
  const { m, num, dateTime, credits, plural } = useI18n();
  const [filter, setFilter] = useState<Filter>(initialFilter);
  const audit = useAudit(filter === 'all' ? { limit: 50 } : { targetType: filter, limit: 50 });
  const actions = m.audit.actions as Record<string, string>;
  const roleName = (r: unknown) => (r === 'admin' || r === 'operator' ? m.roles[r] : String(r ?? ''));

  const target = (entry: NonNullable<typeof audit.data>['entries'][number]): string => {
    const d = isPlainObject(entry.details) ? entry.details : {};
    // Details that cannot be read come as { damaged: true } (the README's "Other stored cells that cannot be read"): said, not guessed around.
    if (d.damaged === true && Object.keys(d).length === 1) return m.audit.damagedDetails;
    switch (entry.targetType) {
      case 'api_key': {
        const key = keys.find((k) => k.id === entry.targetId);
        const prefix = typeof d.prefix === 'string' ? d.prefix : key?.prefix;
        const name = key?.name ?? (typeof d.name === 'string' ? d.name : null);
        return tpl(m.audit.keyTarget, { name: [name, prefix ? `(${prefix})` : null].filter(Boolean).join(' ') || (entry.targetId ?? '') });
      }
      case 'user': {
        const user = users.find((u) => u.id === entry.targetId);
        const who = user?.name ?? (typeof d.email === 'string' ? d.email : entry.targetId ?? '');
        if (entry.action === 'user.role_changed') return `${who} · ${tpl(m.audit.roleChange, { from: roleName(d.from), to: roleName(d.to) })}`;
        if (typeof d.role === 'string') return `${who} · ${roleName(d.role)}`;
        return who;
      }
      case 'credits': {
        const product = d.product === 'cbu' || d.product === 'informes' ? m.products[d.product] : String(d.product ?? '');
        const amount = typeof d.amount === 'number' ? credits(d.amount) : '';
        const ref = typeof d.reference === 'string' && d.reference ? ` · ${d.reference}` : '';
        return `${tpl(m.audit.purchase, { amount, product })}${ref}`;
      }
      case 'directory':
        if (typeof d.reports === 'number') return plural(d.reports, m.audit.importedReports);
        return typeof d.accounts === 'number' ? plural(d.accounts, m.audit.imported) : entry.targetType;
      case 'vault':
        return m.audit.vaultTarget;
      case 'history': {
        // An export: how many lookups, of which product and environment (its filters are in the CLI's `titular audit`).
        const rows = typeof d.rows === 'number' ? plural(d.rows, m.audit.exportedEntries) : '';
        const product = d.product === 'cbu' || d.product === 'informes' ? m.products[d.product] : '';
        const environment = d.environment === 'live' || d.environment === 'sandbox' ? m.keys.envShort[d.environment] : '';
        return [rows, product, environment, typeof d.format === 'string' ? d.format.toUpperCase() : ''].filter(Boolean).join(' · ');
      }
      case 'bulk_job': {
        const name = typeof d.name === 'string' ? tpl(m.audit.batchTarget, { name: d.name }) : (entry.targetId ?? '');
        return [name, typeof d.rows === 'number' ? plural(d.rows, m.audit.exportedRows) : ''].filter(Boolean).join(' · ');
      }
      case 'settings':
        return settingsTarget(entry.action, d);
      case 'data': {
        const dir = entry.action === 'data.restored' ? d.from : d.directory;
        if (typeof dir !== 'string') return '';
        return tpl(entry.action === 'data.restored' ? m.audit.restoreTarget : m.audit.backupTarget, { dir });
      }
      default:
        // A kind of entry this version does not know (a newer Titular wrote it): its id, not its type.
        return entry.targetId ?? '';
    }
  };

  /** A settings entry in words: which settings changed to what, the remote key, or the remote API's fault. */
  const settingsTarget = (action: string, d: Record<string, unknown>): string => {
    if (action === 'remote.upstream_key_set') return d.replaced === true ? m.audit.upstreamKeyReplaced : m.audit.upstreamKeyTarget;
    if (action === 'remote.upstream_key_removed') return m.audit.upstreamKeyTarget;
    if (action === 'remote.upstream_error') {
      const failures = m.audit.upstreamFailures as Record<string, string>;
      const what = (typeof d.kind === 'string' ? failures[d.kind] : undefined) ?? (typeof d.message === 'string' ? d.message : '');
      return [what, typeof d.httpStatus === 'number' ? `HTTP ${d.httpStatus}` : null].filter(Boolean).join(' · ');
    }
    const names = m.audit.settingNames as Record<string, string>;
    return Object.entries(d)
      .filter(([name]) => name !== 'previous')
      .map(([name, value]) => `${names[name] ?? name}: ${settingValue(name, value)}`)
      .join(' · ');
  };
  const settingValue = (name: string, value: unknown): string => {
    if (value === null || value === undefined || value === '') return m.audit.settingNone;
    if (value === 'directory' || value === 'remote') return m.settings.resolver[value];
    // A port is a number without thousands separators (8787, not 8.787).
    return typeof value === 'number' && name !== 'api.port' ? num(value) : String(value);
  };

  const entries = audit.data?.entries ?? [];
  return (
    <Card
      title={m.audit.title}
      subtitle={m.audit.subtitle}
      className="table-card"
      actions={
        <Segmented
          small
          label={m.audit.filter}
          options={(['all', 'api_key', 'user', 'credits'] as const).map((f) => ({ value: f, label: m.audit.filters[f], testId: `audit-filter-${f}` }))}
          value={filter}
          onChange={setFilter}
        />
      }
    >
      {audit.isError ? <ErrorBanner error={audit.error} onRetry={() => void audit.refetch()} /> : null}
      <div className="table-wrap">
        <table className="table zebra" data-testid="audit-table">
          <thead>
            <tr>
              <th>{m.audit.colWhen}</th>
              <th>{m.audit.colWho}</th>
              <th>{m.audit.colAction}</th>
              <th className="audit-target">{m.audit.colTarget}</th>
            </tr>
          </thead>
          <tbody>
            {audit.isPending ? (
              <SkeletonRows rows={4} cols={4} />
            ) : (
              entries.map((entry) => (
                <tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
                  <td className="nowrap">{dateTime(entry.createdAt)}</td>
                  <td>{entry.actor?.name ?? m.audit.system}</td>
                  <td>{actions[entry.action] ?? entry.action}</td>
                  {/* Wraps rather than being cut: a settings change names every setting it changed. */}
                  <td className="audit-target">{target(entry)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {!audit.isPending && entries.length === 0 ? <EmptyState icon={<IconShield size={26} />} title={m.audit.empty} /> : null}
    </Card>
  );
}
