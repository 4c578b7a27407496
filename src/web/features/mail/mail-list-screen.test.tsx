import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MailQueueView } from '../../../shared/schemas/mail';
import { makeStore } from '../../stores/store';
import MailListScreen from './mail-list-screen';

const QUEUE: MailQueueView = {
  messages: [
    {
      _id: 'm1',
      kind: 'order_paid',
      to: 'amina@example.com',
      subject: 'Payment received',
      status: 'failed',
      attempts: 5,
      lastError: 'Connection refused',
      createdAt: '2026-11-24T08:00:00.000Z',
      nextAttemptAt: '2026-11-24T09:00:00.000Z',
      sentAt: null,
    },
  ],
  counts: { queued: 0, sending: 0, sent: 3, failed: 1 },
};

let asked: URL[] = [];

beforeEach(() => {
  asked = [];
  vi.stubGlobal('fetch', async (request: Request) => {
    asked.push(new URL(request.url));
    return Response.json(QUEUE);
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

function renderAt(address: string) {
  const router = createMemoryRouter([{ path: '/admin/mail', element: <MailListScreen /> }], { initialEntries: [address] });
  render(
    <Provider store={makeStore()}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return router;
}

const lastStatusAsked = () => asked.at(-1)?.searchParams.get('status') ?? null;

describe('MailListScreen', () => {
  it('lists the mails, with the count of each status', async () => {
    renderAt('/admin/mail');
    expect(await screen.findByRole('cell', { name: 'amina@example.com' })).toBeTruthy();
    expect(screen.getByText('0 queued · 0 sending · 3 sent · 1 failed')).toBeTruthy();
    expect(lastStatusAsked()).toBeNull();
  });

  it('keeps the status filter in the address, and asks the server for it', async () => {
    const router = renderAt('/admin/mail?status=failed');
    const filter = await screen.findByLabelText<HTMLSelectElement>('Status');
    expect(filter.value).toBe('failed');
    await waitFor(() => expect(lastStatusAsked()).toBe('failed'));

    fireEvent.change(filter, { target: { value: 'sent' } });
    await waitFor(() => expect(router.state.location.search).toBe('?status=sent'));
    expect(router.state.historyAction).toBe('REPLACE');
    await waitFor(() => expect(lastStatusAsked()).toBe('sent'));

    fireEvent.change(filter, { target: { value: '' } });
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('shows every mail for a status it does not know', async () => {
    renderAt('/admin/mail?status=lost');
    expect((await screen.findByLabelText<HTMLSelectElement>('Status')).value).toBe('');
    await waitFor(() => expect(asked.length).toBeGreaterThan(0));
    expect(lastStatusAsked()).toBeNull();
  });
});
