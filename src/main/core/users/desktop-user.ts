// Who the desktop is signed in as. The desktop has no sign-in screen: it is the computer's user,
// the organization's first admin unless chosen otherwise. That choice is saved the first time
// (setting `desktop.userId`) and kept: an admin who demotes themselves stays themselves, now an
// operator, instead of the desktop quietly becoming the next admin (and crediting that admin with
// what it does from then on).
import type { Titular } from '../titular';

export function desktopUserId(titular: Pick<Titular, 'users' | 'settings'>): string {
  const org = titular.users.requireOrganization();
  const users = titular.users.list(org.id);
  const saved = titular.settings.get('desktop.userId');
  if (saved && users.some((u) => u.id === saved)) return saved;
  const admin = users.find((u) => u.role === 'admin');
  if (!admin) throw new Error('The organization has no admin');
  titular.settings.set('desktop.userId', admin.id);
  return admin.id;
}
