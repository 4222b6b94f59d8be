// Hash routing without a router dependency: #/consulta, #/saldo, #/historial, #/claves, #/usuarios.
import { useCallback, useSyncExternalStore } from 'react';

export const ROUTES = ['consulta', 'saldo', 'historial', 'lotes', 'claves', 'usuarios', 'ajustes'] as const;
export type Route = (typeof ROUTES)[number];
export const ADMIN_ROUTES: ReadonlySet<Route> = new Set<Route>(['claves', 'usuarios', 'ajustes']);
export const DEFAULT_ROUTE: Route = 'consulta';

export function parseRoute(hash: string): Route {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return (ROUTES as readonly string[]).includes(name) ? (name as Route) : DEFAULT_ROUTE;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

export function hrefOf(route: Route): string {
  return `#/${route}`;
}

/** Replaces the current route without adding a history entry (used by the admin guard). */
export function replaceRoute(route: Route): void {
  const url = `${window.location.pathname}${window.location.search}${hrefOf(route)}`;
  window.history.replaceState(null, '', url);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useRoute(): [Route, (route: Route) => void] {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  const navigate = useCallback((route: Route) => {
    window.location.hash = hrefOf(route);
  }, []);
  return [parseRoute(hash), navigate];
}
