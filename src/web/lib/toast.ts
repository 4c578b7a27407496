import { errorMessages } from './errors';

/**
 * Toasts (docs/product-rules.md, Constants) without react-toastify in the first download: the first toast loads it and
 * mounts its container (app/layout/toasts.tsx). A toast asked for before the container is up
 * waits in react-toastify's own queue and shows when it mounts.
 */
type Kind = 'error' | 'success';

let wanted = false;
const listeners = new Set<() => void>();

/** At most this many toasts at once: a new one takes the place of the oldest, never waits behind it. */
const MAX_SHOWN = 2;
/** Toasts on screen, oldest first, and which of them are errors. */
const shown: (string | number)[] = [];
const errors = new Set<string | number>();

function show(kind: Kind, msg: string): void {
  if (!wanted) {
    wanted = true;
    for (const listener of listeners) listener();
  }
  void import('react-toastify').then(({ toast }) => {
    // A success clears the errors still shown, so a mistake the shopper fixed stops being shown.
    if (kind === 'success') for (const id of errors) toast.dismiss(id);
    while (shown.length >= MAX_SHOWN) toast.dismiss(shown.shift());
    const id = toast[kind](msg, {
      onClose: () => {
        const at = shown.indexOf(id);
        if (at >= 0) shown.splice(at, 1);
        errors.delete(id);
      },
    });
    shown.push(id);
    if (kind === 'error') errors.add(id);
  });
}

/** For the layout: whether to mount the toast container yet (useSyncExternalStore's two halves). */
export const toastsWanted = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: (): boolean => wanted,
};

export function toastError(msg: string): void {
  show('error', msg);
}

/** Shows each error msg of a failed call as an error toast (docs/product-rules.md, Errors). */
export function toastErrors(error: unknown): void {
  for (const msg of errorMessages(error)) toastError(msg);
}

export function toastSuccess(msg: string): void {
  show('success', msg);
}
