import { configureStore, type UnknownAction } from '@reduxjs/toolkit';
import { beforeEach, describe, expect, it } from 'vitest';
import { authReducer } from './auth-slice';
import {
  addToCart,
  type CartItem,
  type CartState,
  cartCount,
  cartReducer,
  clearCartItems,
  lineKey,
  refreshCartLine,
  removeFromCart,
  resetCart,
  saveShippingAddress,
} from './cart-slice';
import { followedPaymentReducer } from './followed-payment-slice';
import { persistenceMiddleware } from './persistence';

const kettle: CartItem = {
  _id: 'kettle',
  name: 'Kettle',
  image: '/images/kettle.webp',
  price: 1499.5,
  rating: 4,
  description: 'Boils water',
  countInStock: 5,
  qty: 1,
};
const tea: CartItem = { ...kettle, _id: 'tea', name: 'Tea', price: 249.99, qty: 3 };
const address = { county: 'Nairobi', phoneNumber: '0711223344', postalCode: '00100', sub_county: 'Westlands', ward: 'Parklands' };

const stored = (): CartState | null => {
  const raw = localStorage.getItem('cart');
  return raw ? (JSON.parse(raw) as CartState) : null;
};

/** A store with the app's storage listener: each action dispatched gives the cart after it. */
const cartStore = () => {
  const store = configureStore({
    reducer: { auth: authReducer, cart: cartReducer, followedPayment: followedPaymentReducer },
    middleware: (getDefault) => getDefault().prepend(persistenceMiddleware()),
  });
  return (action: UnknownAction) => {
    store.dispatch(action);
    return store.getState().cart;
  };
};

describe('cart rules (docs/product-rules.md, States)', () => {
  beforeEach(() => localStorage.clear());
  it('appends a new product and replaces the line of one already in the cart, qty included', () => {
    const dispatch = cartStore();
    let cart = dispatch(addToCart(kettle));
    cart = dispatch(addToCart(tea));
    cart = dispatch(addToCart({ ...kettle, qty: 4 }));
    expect(cart.cartItems.map((i) => [i._id, i.qty])).toEqual([
      ['kettle', 4],
      ['tea', 3],
    ]);
    expect(cartCount(cart)).toBe(7);
  });

  it('recomputes the totals with the shared pricing rules and saves on every change', () => {
    const dispatch = cartStore();
    let cart = dispatch(addToCart({ ...kettle, qty: 2 }));
    cart = dispatch(addToCart(tea));
    expect(cart).toMatchObject({ itemsPrice: 3748.97, shippingPrice: 100, taxPrice: 562.35, totalPrice: 4411.32 });
    expect(stored()).toMatchObject({ itemsPrice: 3748.97, totalPrice: 4411.32 });
    cart = dispatch(addToCart({ ...kettle, qty: 4 }));
    expect(cart.shippingPrice).toBe(0); // 5998 + 749.97 is above 5000
    expect(stored()?.cartItems).toHaveLength(2);
  });

  it('removes by _id', () => {
    const dispatch = cartStore();
    let cart = dispatch(addToCart(kettle));
    cart = dispatch(addToCart(tea));
    cart = dispatch(removeFromCart('kettle'));
    expect(cart.cartItems.map((i) => i._id)).toEqual(['tea']);
    expect(stored()?.cartItems.map((i) => i._id)).toEqual(['tea']);
  });

  it('keeps the shipping address, and clearing after an order empties the items and removes the stored cart', () => {
    const dispatch = cartStore();
    let cart = dispatch(addToCart(kettle));
    cart = dispatch(saveShippingAddress(address));
    expect(stored()?.shippingAddress).toEqual(address);
    cart = dispatch(clearCartItems());
    expect(cart.cartItems).toEqual([]);
    expect(cart.itemsPrice).toBe(0);
    expect(cart.shippingAddress).toEqual(address);
    expect(stored()).toBeNull();
  });

  it('logging out resets items and address', () => {
    const dispatch = cartStore();
    let cart = dispatch(addToCart(kettle));
    cart = dispatch(saveShippingAddress(address));
    cart = dispatch(resetCart());
    expect(cart.cartItems).toEqual([]);
    expect(cart.shippingAddress).toEqual({});
    expect(stored()).toBeNull();
  });
});

describe('a cart line kept fresh with the shop', () => {
  beforeEach(() => localStorage.clear());

  it("follows the shop's price and stock of a line, brings its qty down to the stock, drops a product no longer sold, and saves", () => {
    const dispatch = cartStore();
    dispatch(addToCart({ ...kettle, qty: 4 }));
    dispatch(addToCart(tea));
    let cart = dispatch(
      refreshCartLine({
        key: 'kettle',
        gone: false,
        name: 'Kettle 2L',
        image: '/images/kettle-2l.webp',
        price: 1599,
        countInStock: 2,
      }),
    );
    expect(cart.cartItems[0]).toMatchObject({
      name: 'Kettle 2L',
      image: '/images/kettle-2l.webp',
      price: 1599,
      countInStock: 2,
      qty: 2,
    });
    expect(cart.itemsPrice).toBe(3947.97);
    expect(stored()?.cartItems[0]?.price).toBe(1599);

    // Sold out: the line stays, with its qty, so the shopper sees why it cannot be ordered.
    cart = dispatch(
      refreshCartLine({ key: 'kettle', gone: false, name: 'Kettle 2L', image: '/k.webp', price: 1599, countInStock: 0 }),
    );
    expect(cart.cartItems[0]).toMatchObject({ countInStock: 0, qty: 2 });

    cart = dispatch(refreshCartLine({ key: 'tea', gone: true }));
    expect(cart.cartItems.map((i) => i._id)).toEqual(['kettle']);
    expect(stored()?.cartItems.map((i) => i._id)).toEqual(['kettle']);
    // A product that is not in the cart changes nothing.
    expect(dispatch(refreshCartLine({ key: 'sugar', gone: true })).cartItems).toHaveLength(1);
  });

  it('keeps two variants of one product as two lines, each replaced, refreshed and removed alone', () => {
    const dispatch = cartStore();
    const size42 = { ...kettle, _id: 'shoe', name: 'Shoe', variantId: 'v42', variant: 'Size 42 / Black', qty: 1 };
    const size43 = { ...size42, variantId: 'v43', variant: 'Size 43 / Black' };
    dispatch(addToCart(size42));
    dispatch(addToCart(size43));
    let cart = dispatch(addToCart({ ...size43, qty: 2 }));
    expect(cart.cartItems.map((i) => [lineKey(i), i.qty])).toEqual([
      ['shoe:v42', 1],
      ['shoe:v43', 2],
    ]);
    cart = dispatch(
      refreshCartLine({ key: 'shoe:v43', gone: false, name: 'Shoe', image: '/s.webp', price: 999, countInStock: 1 }),
    );
    expect(cart.cartItems.map((i) => [i.variantId, i.price, i.qty])).toEqual([
      ['v42', kettle.price, 1],
      ['v43', 999, 1],
    ]);
    cart = dispatch(removeFromCart('shoe:v42'));
    expect(cart.cartItems.map(lineKey)).toEqual(['shoe:v43']);
  });

  it("keeps the price a line was added at while the shop's differs, and forgets it when they agree or the line is added again", () => {
    const dispatch = cartStore();
    dispatch(addToCart(tea));
    const fresh = (price: number) =>
      refreshCartLine({ key: 'tea', gone: false, name: 'Tea', image: tea.image, price, countInStock: 5 });
    expect(dispatch(fresh(260)).cartItems[0]).toMatchObject({ price: 260, priceWas: tea.price });
    // A second change still shows the price it was added at.
    expect(dispatch(fresh(270)).cartItems[0]).toMatchObject({ price: 270, priceWas: tea.price });
    expect(dispatch(fresh(tea.price)).cartItems[0]?.priceWas).toBeUndefined();
    dispatch(fresh(280));
    expect(dispatch(addToCart({ ...tea, price: 280 })).cartItems[0]?.priceWas).toBeUndefined();
  });
});
