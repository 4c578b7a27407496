import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { ToastContainer } from 'react-toastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ConfirmDialog from '../components/confirm-dialog';
import { useConfirmedAction, useConfirmedDelete } from './use-confirmed-delete';

afterEach(cleanup);

interface Row {
  id: string;
  name: string;
}
const ROWS: Row[] = [
  { id: 'r1', name: 'Kikoi' },
  { id: 'r2', name: 'Jiko' },
];

/** A call the test answers when it likes. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An admin list reduced to its rows' Delete buttons and the confirm dialog. */
function List({ remove }: { remove: (row: Row) => Promise<{ msg: string }> }) {
  const deletion = useConfirmedDelete(remove);
  return (
    <>
      <ToastContainer />
      <ul>
        {ROWS.map((row) => (
          <li key={row.id}>
            <button type="button" onClick={() => deletion.ask(row)} disabled={deletion.pending?.id === row.id}>
              {deletion.pending?.id === row.id ? `Deleting ${row.name}` : `Delete ${row.name}`}
            </button>
          </li>
        ))}
      </ul>
      <ConfirmDialog {...deletion.dialog} title="Confirm Deletion" body="Are you sure?" confirmLabel="Delete" />
    </>
  );
}

const dialog = async () => within(await screen.findByRole('dialog'));

describe('useConfirmedDelete', () => {
  it('asks first, and deletes nothing when the admin cancels', async () => {
    const remove = vi.fn(async () => ({ msg: 'Deleted' }));
    render(<List remove={remove} />);
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Delete Jiko' }));
    fireEvent.click((await dialog()).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(remove).not.toHaveBeenCalled();
  });

  it('deletes the row asked about once confirmed, shows it deleting until the server answers, then toasts its msg', async () => {
    const answer = deferred<{ msg: string }>();
    const remove = vi.fn(() => answer.promise);
    render(<List remove={remove} />);
    fireEvent.click(screen.getByRole('button', { name: 'Delete Jiko' }));
    fireEvent.click((await dialog()).getByRole('button', { name: 'Delete' }));
    expect(remove).toHaveBeenCalledExactlyOnceWith(ROWS[1]);
    // The dialog closes at once; the row says it is being deleted, and only that row.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByRole('button', { name: 'Deleting Jiko' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Delete Kikoi' })).toHaveProperty('disabled', false);

    answer.resolve({ msg: 'Product deleted' });
    expect(await screen.findByText('Product deleted')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete Jiko' })).toHaveProperty('disabled', false);
  });

  it('toasts each of the server’s errors when it refuses', async () => {
    const refusal = { status: 400, data: { errors: [{ msg: 'Cannot delete an order that is paid' }, { msg: 'Ask the owner' }] } };
    render(<List remove={() => Promise.reject(refusal)} />);
    fireEvent.click(screen.getByRole('button', { name: 'Delete Kikoi' }));
    fireEvent.click((await dialog()).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Cannot delete an order that is paid')).toBeTruthy();
    expect(await screen.findByText('Ask the owner')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete Kikoi' })).toHaveProperty('disabled', false);
  });
});

/** An action on no row (create), with its own toast and what follows it. */
function Create({ create, onDone }: { create: () => Promise<{ id: string }>; onDone: (made: { id: string }) => void }) {
  const creation = useConfirmedAction<void, { id: string }>(create, { success: (made) => `Created ${made.id}`, onDone });
  return (
    <>
      <ToastContainer />
      <button type="button" onClick={() => creation.ask()} disabled={creation.busy}>
        {creation.busy ? 'Creating…' : 'Create'}
      </button>
      <ConfirmDialog {...creation.dialog} title="Confirm Creation" body="Create one?" confirmLabel="Yes, create" />
    </>
  );
}

describe('useConfirmedAction', () => {
  it('runs an action on no row, is busy meanwhile, then toasts its own words and goes on', async () => {
    const answer = deferred<{ id: string }>();
    const onDone = vi.fn();
    render(<Create create={() => answer.promise} onDone={onDone} />);
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    fireEvent.click((await dialog()).getByRole('button', { name: 'Yes, create' }));
    expect(await screen.findByRole('button', { name: 'Creating…' })).toHaveProperty('disabled', true);
    expect(onDone).not.toHaveBeenCalled();
    answer.resolve({ id: 'p9' });
    expect(await screen.findByText('Created p9')).toBeTruthy();
    expect(onDone).toHaveBeenCalledExactlyOnceWith({ id: 'p9' }, undefined);
    expect(screen.getByRole('button', { name: 'Create' })).toHaveProperty('disabled', false);
  });
});
