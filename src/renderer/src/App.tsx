// The shell: sidebar navigation, top bar with the language switch, and the routed screen.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSession } from './api/hooks';
import { useStartupStatus } from './api/app-hooks';
import { tpl, useI18n } from './i18n';
import { LangSwitch } from './components/LangSwitch';
import { ADMIN_ROUTES, DEFAULT_ROUTE, hrefOf, replaceRoute, useRoute, type Route } from './lib/router';
import { IconBulk, IconClock, IconInfo, IconKey, IconSearch, IconSettings, IconUsers, IconWallet, LogoMark } from './components/Icons';
import { ErrorBanner, Skeleton } from './components/ui';
import { TitlePartContext, documentTitle } from './lib/page-title';
import { ConsultaScreen } from './screens/Consulta';
import { SaldoScreen } from './screens/Saldo';
import { HistorialScreen } from './screens/Historial';
import { LotesScreen } from './screens/Lotes';
import { ClavesScreen } from './screens/Claves';
import { UsuariosScreen } from './screens/Usuarios';
import { AjustesScreen } from './screens/Ajustes';
import { StartupScreen } from './screens/Startup';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { TITULAR_VERSION } from '../../shared/version';

export type Session = ChannelOutput<'session.get'>;

const NAV: { route: Route; icon: ReactNode }[] = [
  { route: 'consulta', icon: <IconSearch /> },
  { route: 'saldo', icon: <IconWallet /> },
  { route: 'historial', icon: <IconClock /> },
  { route: 'lotes', icon: <IconBulk /> },
  { route: 'claves', icon: <IconKey /> },
  { route: 'usuarios', icon: <IconUsers /> },
  { route: 'ajustes', icon: <IconSettings /> },
];

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() || '?';
}

function Sidebar({ session, route }: { session: Session; route: Route }) {
  const { m } = useI18n();
  const isAdmin = session.user.role === 'admin';
  const items = NAV.filter((item) => isAdmin || !ADMIN_ROUTES.has(item.route));
  const renderItem = (item: (typeof NAV)[number]) => (
    <a
      key={item.route}
      href={hrefOf(item.route)}
      className={`nav-item ${route === item.route ? 'active' : ''}`}
      aria-current={route === item.route ? 'page' : undefined}
      title={m.nav[item.route]}
      data-testid={`nav-${item.route}`}
    >
      {item.icon}
      <span>{m.nav[item.route]}</span>
    </a>
  );
  return (
    <aside className="sidebar">
      <div className="brand">
        <LogoMark />
        <div>
          <div className="brand-name">{m.app.name}</div>
          <div className="brand-tagline">{m.app.tagline}</div>
        </div>
      </div>
      <nav className="nav" aria-label={m.nav.section}>
        {items.filter((i) => !ADMIN_ROUTES.has(i.route)).map(renderItem)}
        {isAdmin ? (
          <>
            <div className="nav-section">{m.nav.admin}</div>
            {items.filter((i) => ADMIN_ROUTES.has(i.route)).map(renderItem)}
          </>
        ) : null}
      </nav>
      <div className="sidebar-footer">
        <div className="org">
          <div className="org-label">{m.app.org}</div>
          <div className="org-name" data-testid="session-org" title={session.organization.name}>
            {session.organization.name}
          </div>
        </div>
        {/* The whole name and role on hover: a long name is cut short, and a narrow window shows only the initials. */}
        <div className="me" title={`${session.user.name} · ${m.roles[session.user.role]}`} data-testid="session-me">
          <div className="avatar" aria-hidden="true">
            {initials(session.user.name)}
          </div>
          <div className="me-text">
            <div className="me-name" data-testid="session-user">
              {session.user.name}
            </div>
            <div className="me-role" data-testid="session-role" data-role={session.user.role}>
              {m.roles[session.user.role]}
            </div>
          </div>
        </div>
        <div className="app-version" data-testid="app-version">
          {tpl(m.app.version, { version: TITULAR_VERSION })}
        </div>
      </div>
    </aside>
  );
}

function Screen({ route, session }: { route: Route; session: Session }) {
  switch (route) {
    case 'consulta':
      return <ConsultaScreen />;
    case 'saldo':
      return <SaldoScreen session={session} />;
    case 'historial':
      return <HistorialScreen />;
    case 'lotes':
      return <LotesScreen session={session} />;
    case 'claves':
      return <ClavesScreen session={session} />;
    case 'usuarios':
      return <UsuariosScreen session={session} />;
    case 'ajustes':
      return <AjustesScreen />;
  }
}

function Splash({ children }: { children: ReactNode }) {
  return (
    <div className="splash">
      <div className="splash-card">
        <LogoMark size={44} />
        {children}
      </div>
    </div>
  );
}

export function App() {
  const { m } = useI18n();
  const startup = useStartupStatus();
  const ready = startup.data?.phase === 'ready';
  const session = useSession({ enabled: ready });
  const [route] = useRoute();
  const role = session.data?.user.role;
  const blocked = role === 'operator' && ADMIN_ROUTES.has(route);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLElement>(null);

  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [route]);

  // Operators never land on admin screens, not even by typing the hash (a link a colleague sent):
  // they go to Consulta, which says why, until they move on to another screen.
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (blocked) {
      setRefused(true);
      replaceRoute(DEFAULT_ROUTE);
    } else if (route !== DEFAULT_ROUTE) {
      setRefused(false);
    }
  }, [blocked, route]);

  // The screen's part in front of its name, when it has one on (see lib/page-title.ts).
  const [titlePart, setTitlePart] = useState<string | null>(null);
  useEffect(() => {
    document.title = documentTitle([titlePart, m.nav[route], m.app.name]);
  }, [m, route, titlePart]);

  // The startup gate first: setup on first run, the unlock screen for a passphrase vault.
  if (startup.data && !ready) return <StartupScreen status={startup.data} />;
  const failed = startup.isError ? startup : session.isError ? session : null;
  if (failed?.error) {
    const error = failed.error;
    const unauthorized = error.code === 'UNAUTHORIZED';
    return (
      <Splash>
        <h1 className="splash-title">{m.app.sessionErrorTitle}</h1>
        {unauthorized ? (
          <div data-testid="session-error" data-error-code={error.code} role="alert">
            <p className="splash-text">{m.app.sessionErrorBody}</p>
            <p className="small muted" style={{ marginTop: 10 }}>
              {m.common.code}: <span className="code-chip">{error.code}</span>
            </p>
          </div>
        ) : (
          <ErrorBanner error={error} testId="session-error" onRetry={() => void failed.refetch()} />
        )}
      </Splash>
    );
  }

  if (startup.isPending || session.isPending) {
    return (
      <Splash>
        <p className="splash-text">{m.app.loadingSession}</p>
        <Skeleton width={220} />
      </Splash>
    );
  }
  const data = session.data;
  if (!data) return null;
  const shown: Route = blocked ? DEFAULT_ROUTE : route;
  return (
    <div className="shell">
      {/* First in Tab order, shown only while focused: past the sidebar's links to the screen. The
          routes live in the hash, so it focuses <main> itself instead of following href="#content". */}
      <a
        className="skip-link"
        href="#content"
        onClick={(e) => {
          e.preventDefault();
          content.current?.focus();
        }}
        data-testid="skip-link"
      >
        {m.app.skipToContent}
      </a>
      <Sidebar session={data} route={shown} />
      <div className="main" ref={scroller}>
        <div className="topbar">
          <div className="crumbs">
            <span>{data.organization.name}</span>
            <span className="crumb-sep">/</span>
            <strong>{m.nav[shown]}</strong>
          </div>
          <LangSwitch />
        </div>
        <main className="content" id="content" key={shown} ref={content} tabIndex={-1}>
          {refused && shown === DEFAULT_ROUTE ? (
            <div className="banner banner-info" role="status" data-testid="restricted-notice">
              <IconInfo size={18} className="banner-icon" />
              <div className="banner-body">{m.app.restricted}</div>
            </div>
          ) : null}
          <TitlePartContext.Provider value={setTitlePart}>
            <Screen route={shown} session={data} />
          </TitlePartContext.Provider>
        </main>
      </div>
    </div>
  );
}
