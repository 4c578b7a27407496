import { errorMessages } from './errors';

/**
 * Toasts (docs/product-rules.md, Constants) without react-toastify in the first download: the first toast loads it and
 * mounts its container (app/layout/Toasts.tsx). A toast asked for before the container is up
 * waits in react-toastify's own queue and shows when it mounts.
 */
type Kind = 'error' | 'success';

let wanted = false;
const listeners = new Set<() => void>();

/** Error toasts still on screen: a success clears them, so a fixed mistake stops being shown. */
const openErrors = new Set<string | number>();

function show(kind: Kind, msg: string): void {
  if (!wanted) {
    wanted = true;
    for (const listener of listeners) listener();
  }
  void import('react-toastify').then(({ toast }) => {
    if (kind === 'success') {
      for (const id of openErrors) toast.dismiss(id);
      openErrors.clear();
      toast.success(msg);
      return;
    }
    const id = toast.error(msg, { onClose: () => openErrors.delete(id) });
    openErrors.add(id);
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
