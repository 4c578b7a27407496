import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import CheckoutSteps from './checkout-steps';

afterEach(cleanup);

function renderSteps(props: Parameters<typeof CheckoutSteps>[0]) {
  render(
    <MemoryRouter>
      <CheckoutSteps {...props} />
    </MemoryRouter>,
  );
}

describe('CheckoutSteps', () => {
  it('makes only the reached steps links', () => {
    renderSteps({ step1: true, step2: true });
    expect(screen.getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe('/login');
    expect(screen.getByRole('link', { name: 'Shipping' }).getAttribute('href')).toBe('/shipping');
    expect(screen.queryByRole('link', { name: 'Place Order' })).toBeNull();
    expect(screen.getByText('Place Order').getAttribute('aria-disabled')).toBe('true');
  });

  it('links all three on the last step', () => {
    renderSteps({ step1: true, step2: true, step3: true });
    expect(screen.getAllByRole('link').map((a) => a.textContent)).toEqual(['Sign In', 'Shipping', 'Place Order']);
  });
});
