import { useState } from 'react';
import type { ConfirmDialogProps } from '../components/confirm-dialog';
import { toastErrors, toastSuccess } from '../lib/toast';

export interface ConfirmedAction<Item> {
  /** Asks first: the dialog opens for this item (a row's Delete). */
  ask: (item: Item) => void;
  /** What components/confirm-dialog.tsx needs: shown while an item waits for an answer; Confirm runs the call, Cancel closes. */
  dialog: Pick<ConfirmDialogProps, 'show' | 'onConfirm' | 'onCancel'>;
  /** The item whose call runs now (the row being deleted), until the server answers. */
  pending: Item | undefined;
  /** Whether a call runs now. */
  busy: boolean;
}

export interface ConfirmedActionOptions<Item, Result> {
  /** The success toast. */
  success: (result: Result, item: Item) => string;
  /** What follows a success, after its toast (say, going to the new record). */
  onDone?: (result: Result, item: Item) => void;
}

/**
 * An action the admin confirms first: ask → the confirm dialog → the call → a toast of the
 * outcome (the server's errors if it refuses). The dialog closes as the call starts.
 */
export function useConfirmedAction<Item, Result>(
  run: (item: Item) => Promise<Result>,
  { success, onDone }: ConfirmedActionOptions<Item, Result>,
): ConfirmedAction<Item> {
  // Boxed, so that an item that is itself undefined (an action on no row) still counts as asked.
  const [asked, setAsked] = useState<{ item: Item } | null>(null);
  const [running, setRunning] = useState<{ item: Item } | null>(null);

  async function confirm() {
    if (!asked) return;
    const call = asked;
    setAsked(null);
    setRunning(call);
    try {
      const result = await run(call.item);
      toastSuccess(success(result, call.item));
      onDone?.(result, call.item);
    } catch (error) {
      toastErrors(error);
    } finally {
      // A later call may have started meanwhile: it is the one that runs now.
      setRunning((current) => (current === call ? null : current));
    }
  }

  return {
    ask: (item) => setAsked({ item }),
    dialog: { show: asked !== null, onConfirm: confirm, onCancel: () => setAsked(null) },
    pending: running?.item,
    busy: running !== null,
  };
}

/** A row's Delete, confirmed first: the server's answer `{ msg }` is the success toast. */
export function useConfirmedDelete<Item>(remove: (item: Item) => Promise<{ msg: string }>): ConfirmedAction<Item> {
  return useConfirmedAction(remove, { success: (result) => result.msg });
}
