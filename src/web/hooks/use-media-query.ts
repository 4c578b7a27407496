import { useCallback, useSyncExternalStore } from 'react';

/** Whether a CSS media query matches now; the component re-renders when that changes. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Bootstrap's `md` breakpoint and up: room for a table. Below it, lists become cards. */
export const MD_AND_UP = '(min-width: 768px)';

/** The visitor has asked the system for less motion. */
export const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';
