import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import FormField from '../components/form/form-field';
import { useZodForm } from '../components/form/use-zod-form';
import { type ServerErrorOptions, useServerErrors } from './use-server-errors';

afterEach(cleanup);

const schema = z.object({ orderId: z.string(), receipt: z.string().trim().min(1, { error: 'Enter the receipt' }) });
type Fields = { orderId: string; receipt: string };

/** A form whose every submit the server refuses with `refusal`; the messages of no field show at its top. */
function Sample({ refusal, options }: { refusal: unknown; options?: ServerErrorOptions<Fields> }) {
  const form = useZodForm<Fields, Fields>(schema, { orderId: '', receipt: '' });
  const serverErrors = useServerErrors(form, options);
  const submit = form.handleSubmit(
    async () => {
      try {
        await Promise.reject(refusal);
      } catch (error) {
        serverErrors.show(error);
      }
    },
    // Refused by the form itself: the server's last words no longer apply.
    () => serverErrors.clear(),
  );
  return (
    <form noValidate onSubmit={submit} aria-label="Sample">
      {serverErrors.formErrors.length > 0 && <div role="alert">{serverErrors.formErrors.join(' ')}</div>}
      <FormField form={form} name="orderId" label="Order" />
      <FormField form={form} name="receipt" label="Receipt" />
      <button type="submit">Send</button>
    </form>
  );
}

const refused = (...errors: { msg: string; path?: string }[]) => ({ status: 400, data: { errors } });

/** Fills the receipt, which the form itself asks for, and sends. */
function send() {
  fireEvent.change(screen.getByLabelText('Receipt'), { target: { value: 'SKL4A7K2QZ' } });
  fireEvent.click(screen.getByRole('button', { name: 'Send' }));
}

const messageOf = (label: string) => {
  const input = screen.getByLabelText(label);
  const ids = input.getAttribute('aria-describedby')?.split(' ') ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent).join(' ') || null;
};

describe('useServerErrors', () => {
  it('shows a message under the field its path names, and one of no field at the top', async () => {
    render(<Sample refusal={refused({ msg: 'This receipt is already recorded', path: 'receipt' }, { msg: 'Try later' })} />);
    send();
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Try later');
    expect(messageOf('Receipt')).toBe('This receipt is already recorded');
    expect(screen.getByLabelText('Receipt').getAttribute('aria-invalid')).toBe('true');
    expect(messageOf('Order')).toBeNull();
  });

  it('puts a path that is not a field of the form at the top', async () => {
    render(<Sample refusal={refused({ msg: 'Unknown token', path: 'token' })} />);
    send();
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Unknown token');
    expect(messageOf('Order')).toBeNull();
    expect(messageOf('Receipt')).toBeNull();
  });

  it('renames a field the server names otherwise', async () => {
    const options = { rename: { orderNumber: 'orderId' } } as const;
    render(<Sample refusal={refused({ msg: 'Order not found', path: 'orderNumber' })} options={options} />);
    send();
    await waitFor(() => expect(messageOf('Order')).toBe('Order not found'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('keeps the first message of a field under it, and the next at the top', async () => {
    render(<Sample refusal={refused({ msg: 'First', path: 'receipt' }, { msg: 'Second', path: 'receipt' })} />);
    send();
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Second');
    expect(messageOf('Receipt')).toBe('First');
  });

  it('says what went wrong when the failure has no messages (offline)', async () => {
    render(<Sample refusal={{ status: 'FETCH_ERROR', error: 'TypeError: Failed to fetch' }} />);
    send();
    expect(await screen.findByRole('alert')).toHaveProperty(
      'textContent',
      'Cannot reach the shop. Check your connection and try again.',
    );
  });

  it('puts the messages of no field under the fallback field, with its own', async () => {
    const options = { fallback: 'receipt' } as const;
    render(<Sample refusal={refused({ msg: 'Already recorded', path: 'receipt' }, { msg: 'Try later' })} options={options} />);
    send();
    await waitFor(() => expect(messageOf('Receipt')).toBe('Already recorded Try later'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('drops a field’s message once it is changed', async () => {
    render(<Sample refusal={refused({ msg: 'Already recorded', path: 'receipt' })} />);
    send();
    await waitFor(() => expect(messageOf('Receipt')).toBe('Already recorded'));
    fireEvent.change(screen.getByLabelText('Receipt'), { target: { value: 'SKL4A7K2QY' } });
    await waitFor(() => expect(messageOf('Receipt')).toBeNull());
  });

  it('replaces the top’s messages at the next refusal, and clears them when asked', async () => {
    render(<Sample refusal={refused({ msg: 'Try later' })} />);
    send();
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Try later');
    send();
    await waitFor(() => expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Try later']));
    // The form refuses an empty receipt itself: the server's words go.
    fireEvent.change(screen.getByLabelText('Receipt'), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(messageOf('Receipt')).toBe('Enter the receipt'));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
