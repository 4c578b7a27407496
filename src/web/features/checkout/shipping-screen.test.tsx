import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MSISDN_ERROR } from '../../../shared/phone';
import { setCredentials } from '../../stores/auth-slice';
import { addToCart } from '../../stores/cart-slice';
import { makeStore } from '../../stores/store';
import ShippingScreen from './shipping-screen';

const ITEM = {
  _id: 'p1',
  name: 'Ketepa',
  image: '/images/tea.jpg',
  price: 300,
  rating: 4,
  description: '',
  countInStock: 5,
  qty: 1,
};

beforeEach(() => {
  localStorage.clear();
  // The shopper has no earlier order to fill the form from.
  vi.stubGlobal('fetch', async () => new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderShipping(state?: unknown) {
  const store = makeStore();
  store.dispatch(setCredentials({ _id: 'u1', name: 'Achieng', email: 'achieng@example.com', isAdmin: false }));
  store.dispatch(addToCart(ITEM));
  const router = createMemoryRouter(
    [
      { path: '/shipping', element: <ShippingScreen /> },
      { path: '/place-order', element: <p>Place order screen</p> },
    ],
    { initialEntries: [{ pathname: '/shipping', state }] },
  );
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return { store, router };
}

const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label, { exact: true });

async function fill(values: Record<string, string>) {
  const user = userEvent.setup();
  for (const [label, value] of Object.entries(values)) {
    await user.clear(field(label));
    if (value) await user.type(field(label), value);
  }
  return user;
}

describe('the Shipping form', () => {
  it('refuses a phone number the shared Kenyan rule refuses, under the field, and stays', async () => {
    const { store, router } = renderShipping();
    const user = await fill({ County: 'Nairobi', 'Phone Number': '12345', 'Postal Code': '00100' });
    await user.click(screen.getByRole('button', { name: 'Continue' }));

    const phone = field('Phone Number');
    await waitFor(() => expect(phone.getAttribute('aria-invalid')).toBe('true'));
    const error = document.getElementById(phone.getAttribute('aria-describedby') ?? '');
    expect(error?.textContent).toBe(MSISDN_ERROR);
    expect(router.state.location.pathname).toBe('/shipping');
    expect(store.getState().cart.shippingAddress).toEqual({});
    // The other fields are fine and say nothing.
    expect(field('County').getAttribute('aria-invalid')).toBeNull();

    // Corrected, the complaint goes at once, and Continue saves the address as typed, without spaces.
    await user.clear(phone);
    await user.type(phone, '0711 223 344');
    await waitFor(() => expect(phone.getAttribute('aria-invalid')).toBeNull());
    await fill({ 'Sub County': ' Westlands ', Ward: 'Parklands' });
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/place-order'));
    expect(store.getState().cart.shippingAddress).toEqual({
      county: 'Nairobi',
      phoneNumber: '0711223344',
      postalCode: '00100',
      sub_county: 'Westlands',
      ward: 'Parklands',
    });
  });

  it('refuses a postal code that is not 3 to 10 digits', async () => {
    const { router } = renderShipping();
    const user = await fill({ 'Postal Code': '12' });
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(screen.getByText('Postal Code must be 3 to 10 digits')).toBeTruthy());
    expect(field('Postal Code').getAttribute('aria-invalid')).toBe('true');
    expect(router.state.location.pathname).toBe('/shipping');
  });

  it('requires no field itself: an empty address goes on to Place Order, which checks it', async () => {
    const { router } = renderShipping();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/place-order'));
  });

  it('marks each missing field when Place Order sends an incomplete address back', async () => {
    renderShipping({ addressIncomplete: true });
    expect(screen.getByText('Please fill in every field of your address to place your order.')).toBeTruthy();
    for (const label of ['County', 'Phone Number', 'Postal Code', 'Sub County', 'Ward']) {
      await waitFor(() => expect(field(label).getAttribute('aria-invalid')).toBe('true'));
      expect(screen.getByText(`${label} is required`)).toBeTruthy();
    }
  });

  it('takes its limits from the shared schema', () => {
    renderShipping();
    expect(field('County').maxLength).toBe(100);
    expect(field('Ward').maxLength).toBe(100);
    expect(field('Phone Number').maxLength).toBe(20);
    expect(field('Phone Number').inputMode).toBe('numeric');
    expect(field('Phone Number').placeholder).toBe('e.g. 0711223344');
  });
});
