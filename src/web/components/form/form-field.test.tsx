import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { formInteger, requiredText } from '../../../shared/schemas/common';
import { email } from '../../../shared/schemas/users';
import FormField from './form-field';
import { limitsOf } from './limits';
import { useZodForm } from './use-zod-form';

afterEach(cleanup);

const schema = z.object({
  name: requiredText('Name', 40),
  rating: z.coerce.number().int().min(1, { error: 'Rating must be from 1 to 5' }).max(5),
  agree: z.boolean(),
});
type Fields = { name: string; rating: string; agree: boolean };

function Sample({ onValid }: { onValid: (value: z.output<typeof schema>) => void }) {
  const form = useZodForm<Fields, z.output<typeof schema>>(schema, { name: '', rating: '', agree: false });
  return (
    <form noValidate onSubmit={form.handleSubmit(onValid)}>
      <FormField form={form} name="name" label="Name" hint="As on your ID" schema={schema.shape.name} />
      <FormField form={form} name="rating" label="Rating" type="number" schema={schema.shape.rating} />
      <FormField form={form} name="agree" label="I agree" control="checkbox" />
      <button type="submit">Send</button>
    </form>
  );
}

describe('FormField', () => {
  it('ties the label, the hint and the schema’s message to the control', async () => {
    const onValid = vi.fn();
    render(<Sample onValid={onValid} />);
    const name = screen.getByLabelText<HTMLInputElement>('Name');
    expect(name.getAttribute('aria-describedby')).toBe('name-hint');
    expect(document.getElementById('name-hint')?.textContent).toBe('As on your ID');
    expect(name.getAttribute('aria-invalid')).toBeNull();

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(name.getAttribute('aria-invalid')).toBe('true'));
    expect(name.className).toContain('is-invalid');
    expect(name.getAttribute('aria-describedby')).toBe('name-hint name-error');
    const error = document.getElementById('name-error');
    expect(error?.textContent).toBe('Name is required');
    expect(error?.className).toContain('invalid-feedback');
    expect(document.getElementById('rating-error')?.textContent).toBe('Rating must be from 1 to 5');
    expect(onValid).not.toHaveBeenCalled();

    // Fixed, the message goes as soon as the field is right, and the form sends the parsed values.
    await user.type(name, '  Amina ');
    await waitFor(() => expect(name.getAttribute('aria-invalid')).toBeNull());
    expect(name.getAttribute('aria-describedby')).toBe('name-hint');
    await user.type(screen.getByLabelText('Rating'), '4');
    await user.click(screen.getByLabelText('I agree'));
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(onValid).toHaveBeenCalledTimes(1));
    expect(onValid.mock.calls[0]?.[0]).toEqual({ name: 'Amina', rating: 4, agree: true });
  });

  it('gives the control the limits of its schema', () => {
    render(<Sample onValid={() => {}} />);
    expect(screen.getByLabelText<HTMLInputElement>('Name').maxLength).toBe(40);
    const rating = screen.getByLabelText<HTMLInputElement>('Rating');
    expect([rating.min, rating.max]).toEqual(['1', '5']);
  });
});

describe('limitsOf', () => {
  it('reads a string’s maxLength through optional(), preprocess and pipes', () => {
    expect(limitsOf(requiredText('Name', 100))).toEqual({ maxLength: 100 });
    expect(limitsOf(requiredText('Name', 100).optional())).toEqual({ maxLength: 100 });
    expect(limitsOf(email)).toEqual({ maxLength: 254 });
    expect(limitsOf(z.preprocess((v) => v, z.string().max(20)))).toEqual({ maxLength: 20 });
  });

  it('reads a number’s range, and nothing it cannot know', () => {
    expect(limitsOf(z.number().min(0).max(100))).toEqual({ min: 0, max: 100 });
    // A whole number has no range of its own; limits in refine() are checked on submit only.
    expect(limitsOf(formInteger('Count'))).toEqual({});
    expect(limitsOf(z.boolean())).toEqual({});
  });
});
