// `titular users add|list`.
import { oneOf, requiredString } from './args';
import type { CommandSpec } from './context';
import { formatInstant } from './output';

export const userCommands: CommandSpec[] = [
  {
    name: 'users add',
    synopsis: '--name NAME --email EMAIL --role admin|operator',
    summary: 'Add a user to the organization',
    details: ['--name NAME                 full name', '--email EMAIL               unique in the organization', '--role admin|operator       admins manage keys, credits and users'],
    options: { name: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const name = requiredString(ctx.values, 'name', ctx.command);
      const email = requiredString(ctx.values, 'email', ctx.command);
      const role = oneOf(requiredString(ctx.values, 'role', ctx.command), ['admin', 'operator'] as const, '--role', ctx.command);
      const user = ctx.titular.users.add(ctx.org.id, { name, email, role }, ctx.actor.id);
      if (ctx.out.json) ctx.out.data(user);
      else ctx.out.line(`Added ${user.role} ${user.name} <${user.email}> (${user.id})`);
    },
  },
  {
    name: 'users list',
    synopsis: '',
    summary: 'List the users of the organization',
    options: {},
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const users = ctx.titular.users.list(ctx.org.id);
      if (ctx.out.json) {
        ctx.out.data({ users });
        return;
      }
      ctx.out.table(
        ['ID', 'NAME', 'EMAIL', 'ROLE', 'CREATED'],
        users.map((u) => [u.id, u.name, u.email, u.role, formatInstant(u.createdAt)]),
      );
    },
  },
];
