// Usuarios: the organization's members, adding one, and changing roles.
import { useId, useRef, useState } from 'react';
import type { Role, UserView } from '../../../shared/ipc/contract';
import { useAddUser, useKeys, useSetUserRole, useUsers } from '../api/hooks';
import { tpl, useI18n } from '../i18n';
import type { Session } from '../App';
import { AuditTable } from '../components/AuditTable';
import { ConfirmDialog } from '../components/Dialog';
import { Badge, Card, EmptyState, ErrorBanner, PageHeader, SkeletonRows, Spinner } from '../components/ui';
import { useToast } from '../components/Toast';
import { IconAlert, IconPlus, IconUsers } from '../components/Icons';
import { useRefocus } from '../lib/focus';

const ROLES: Role[] = ['operator', 'admin'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() || '?';
}

export function UsuariosScreen({ session }: { session: Session }) {
  const { m } = useI18n();
  const isAdmin = session.user.role === 'admin';
  const users = useUsers({ enabled: isAdmin });
  const keys = useKeys({ enabled: isAdmin });
  const setRole = useSetUserRole();
  const toast = useToast();
  const list = users.data?.users ?? [];
  // A role change waits for a confirmation: the select used to apply it at once, and an admin who
  // picked "Operador" on their own row lost the admin screens on the spot.
  const [pending, setPending] = useState<{ user: UserView; role: Role } | null>(null);

  const changeRole = (user: UserView, role: Role) => {
    if (role !== user.role) setPending({ user, role });
  };
  const confirmRole = () => {
    if (!pending) return;
    setRole.mutate(
      { id: pending.user.id, role: pending.role },
      {
        onSuccess: (r) => toast((t) => tpl(t.m.users.roleChanged, { name: r.user.name })),
        // A refusal (the last admin) is said in the list's banner, not in a dialog left open.
        onSettled: () => setPending(null),
      },
    );
  };

  return (
    <>
      <PageHeader title={m.pages.usuarios.title} subtitle={m.pages.usuarios.subtitle} />
      <div className="users-grid">
        <Card title={m.users.listTitle} className="table-card">
          {users.isError ? <ErrorBanner error={users.error} onRetry={() => void users.refetch()} /> : null}
          {setRole.isError ? <ErrorBanner error={setRole.error} testId="user-role-error" reasonAsTitle /> : null}
          <div className="table-wrap">
            <table className="table zebra hoverable users-table" data-testid="users-table">
              <thead>
                <tr>
                  <th className="users-col-name">{m.users.name}</th>
                  <th className="users-col-email">{m.users.email}</th>
                  <th>{m.users.role}</th>
                  <th>{m.users.since}</th>
                </tr>
              </thead>
              <tbody>
                {users.isPending ? (
                  <SkeletonRows rows={3} cols={4} />
                ) : (
                  list.map((user) => {
                    const me = user.id === session.user.id;
                    return (
                      <UserRow key={user.id} user={user} me={me} busy={setRole.isPending && setRole.variables?.id === user.id} onRole={(role) => changeRole(user, role)} />
                    );
                  })
                )}
              </tbody>
            </table>
          </div>
          {users.data && list.length === 0 ? <EmptyState icon={<IconUsers size={28} />} title={m.users.empty} /> : null}
        </Card>
        {/* A later action that works takes a refused role change's banner away (it no longer says what is on screen). */}
        <AddUserForm onAdded={() => setRole.reset()} />
      </div>
      <AuditTable keys={keys.data?.keys} users={list} initialFilter="user" />
      {pending ? <RoleDialog user={pending.user} role={pending.role} me={pending.user.id === session.user.id} busy={setRole.isPending} onConfirm={confirmRole} onCancel={() => setPending(null)} /> : null}
    </>
  );
}

function RoleDialog({ user, role, me, busy, onConfirm, onCancel }: { user: UserView; role: Role; me: boolean; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const { m } = useI18n();
  const vars = { name: user.name, from: m.roles[user.role], to: m.roles[role] };
  // Your own role: operators see no admin screen, so the change takes this very screen away from you.
  const ownDemotion = me && role !== 'admin';
  return (
    <ConfirmDialog
      title={ownDemotion ? m.users.ownRoleTitle : tpl(m.users.roleConfirmTitle, vars)}
      okLabel={ownDemotion ? tpl(m.users.ownRoleOk, vars) : m.users.roleConfirmOk}
      destructive={ownDemotion}
      busy={busy}
      onConfirm={onConfirm}
      onCancel={() => !busy && onCancel()}
    >
      <p data-testid="user-role-confirm">{tpl(m.users.roleConfirmBody, vars)}</p>
      {ownDemotion ? (
        <div className="inline-warning" role="note" data-testid="user-role-own-warning">
          <IconAlert size={16} /> {m.users.ownRoleWarning}
        </div>
      ) : (
        <p className="muted small">{role === 'admin' ? m.users.toAdminNote : m.users.toOperatorNote}</p>
      )}
    </ConfirmDialog>
  );
}

function UserRow({ user, me, busy, onRole }: { user: UserView; me: boolean; busy: boolean; onRole: (role: Role) => void }) {
  const { m, date } = useI18n();
  const selectId = useId();
  return (
    <tr data-testid="user-row" data-user-id={user.id} data-role={user.role}>
      <td className="users-col-name">
        <div className="user-cell">
          <span className="avatar small" aria-hidden="true">
            {initials(user.name)}
          </span>
          <span className="cell-title" title={user.name} data-testid="user-name">
            {user.name}
          </span>
          {me ? <Badge tone="info">{m.users.you}</Badge> : null}
        </div>
      </td>
      <td className="users-col-email" title={user.email} data-testid="user-email">
        {user.email}
      </td>
      <td>
        <label className="sr-only" htmlFor={selectId}>
          {tpl(m.users.changeRole, { name: user.name })}
        </label>
        <div className="inline-select">
          <select id={selectId} className={`input input-sm role-${user.role}`} value={user.role} disabled={busy} onChange={(e) => onRole(e.target.value as Role)} data-testid="user-role-select">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {m.roles[r]}
              </option>
            ))}
          </select>
          {busy ? <Spinner /> : null}
        </div>
      </td>
      <td className="nowrap" data-testid="user-since">{date(user.createdAt)}</td>
    </tr>
  );
}

function AddUserForm({ onAdded }: { onAdded: () => void }) {
  const { m } = useI18n();
  const id = useId();
  const add = useAddUser();
  const toast = useToast();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('operator');
  const [touched, setTouched] = useState(false);
  const nameOk = name.trim().length > 0;
  const emailOk = EMAIL.test(email.trim());
  // The button is disabled while the user is added: focus goes to the name for the next one, or back
  // to the button beside an error (an email already in use).
  const nameInput = useRef<HTMLInputElement>(null);
  const submitButton = useRef<HTMLButtonElement>(null);
  const refocus = useRefocus();

  const submit = () => {
    setTouched(true);
    if (!nameOk || !emailOk || add.isPending) return;
    add.mutate(
      { name: name.trim(), email: email.trim(), role },
      {
        onSuccess: (r) => {
          toast((t) => tpl(t.m.users.added, { name: r.user.name }));
          onAdded();
          setName('');
          setEmail('');
          setRole('operator');
          setTouched(false);
          refocus(nameInput);
        },
        onError: () => refocus(submitButton, nameInput),
      },
    );
  };

  return (
    <Card title={m.users.addTitle} subtitle={m.users.addBody} className="add-user-card" testId="user-add-form">
      <form
        className="form-stack user-add-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        noValidate
      >
        <div className="field">
          <label className="field-label" htmlFor={`${id}-name`}>
            {m.users.name}
          </label>
          <input ref={nameInput} id={`${id}-name`} className="input" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} data-testid="user-add-name" autoComplete="off" />
          {touched && !nameOk ? <p className="field-error">{m.users.nameRequired}</p> : null}
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-email`}>
            {m.users.email}
          </label>
          <input id={`${id}-email`} type="email" className="input" value={email} maxLength={200} onChange={(e) => setEmail(e.target.value)} data-testid="user-add-email" autoComplete="off" />
          {touched && !emailOk ? <p className="field-error">{m.users.emailInvalid}</p> : null}
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-role`}>
            {m.users.role}
          </label>
          <select id={`${id}-role`} className="input" value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="user-add-role">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {m.roles[r]}
              </option>
            ))}
          </select>
        </div>
        <button ref={submitButton} type="submit" className="btn btn-primary" disabled={add.isPending} data-testid="user-add-submit">
          {add.isPending ? <Spinner /> : <IconPlus size={16} />}
          <span>{add.isPending ? m.users.submitting : m.users.submit}</span>
        </button>
        {add.isError ? <ErrorBanner error={add.error} testId="user-add-error" /> : null}
      </form>
    </Card>
  );
}
