// The document title (the window's and the taskbar's) is "Screen · Titular", the sidebar's word for
// the route. A screen with parts of its own (Consulta's Informe crediticio tab) names the part in
// front: "Informe crediticio · Consulta · Titular". The shell composes it (App.tsx); a screen says
// which part is on with useTitlePart, and the part is dropped when the screen goes.
import { createContext, useContext, useEffect } from 'react';

export const TitlePartContext = createContext<(part: string | null) => void>(() => {});

export function useTitlePart(part: string | null): void {
  const setPart = useContext(TitlePartContext);
  useEffect(() => {
    setPart(part);
    return () => setPart(null);
  }, [setPart, part]);
}

export function documentTitle(parts: readonly (string | null | undefined)[]): string {
  return parts.filter(Boolean).join(' · ');
}
