import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { DEFAULT_PRICING, type OrderTotals, orderTotals, type PricingSettings } from '../../shared/pricing';
import type { ShippingAddress } from '../../shared/schemas/orders';
import { shopSettingsApi } from '../lib/shop-settings';
import { readStored } from '../lib/storage';

/** A cart line as docs/product-rules.md keeps it (Data): the product's fields and the chosen qty. */
export interface CartItem {
  _id: string;
  name: string;
  image: string;
  price: number;
  rating: number;
  description: string;
  countInStock: number;
  qty: number;
  /** For a product sold in variants: the variant chosen, and its description ("Size 42 / Black"). */
  variantId?: string;
  variant?: string;
  /** The price the line was added at, while the shop's price differs from it: shown struck through. */
  priceWas?: number;
}

/** A cart line is a product, or one variant of it: the same shoe in two sizes is two lines. */
export function lineKey(item: Pick<CartItem, '_id' | 'variantId'>): string {
  return item.variantId ? `${item._id}:${item.variantId}` : item._id;
}

/** What the shop says of a cart line now (the cart feature asks it), by its lineKey: sold as this, or gone. */
export type FreshCartLine =
  | { key: string; gone: false; name: string; image: string; price: number; countInStock: number }
  | { key: string; gone: true };

export interface CartState extends OrderTotals {
  cartItems: CartItem[];
  shippingAddress: Partial<ShippingAddress>;
  /** The shop's delivery fee, free-delivery threshold and tax, as GET /api/settings last said. */
  pricing: PricingSettings;
}

const emptyCart = (pricing: PricingSettings = DEFAULT_PRICING): CartState => ({
  cartItems: [],
  shippingAddress: {},
  pricing,
  ...orderTotals([], pricing),
});

function isPricing(value: unknown): value is PricingSettings {
  const v = value as Partial<PricingSettings> | null;
  return typeof v?.taxPercent === 'number' && typeof v.shippingFee === 'number' && typeof v.freeShippingThreshold === 'number';
}

function isCart(value: unknown): value is CartState {
  const v = value as Partial<CartState> | null;
  return Array.isArray(v?.cartItems) && typeof v.shippingAddress === 'object' && v.shippingAddress !== null;
}

/**
 * Every change recomputes the totals with the shared pricing rules and the shop's settings (the
 * cart is saved by ./persistence.ts, docs/product-rules.md, States).
 */
function recompute(state: CartState): void {
  Object.assign(state, orderTotals(state.cartItems, state.pricing));
}

function initialCart(): CartState {
  const stored = readStored('cart', isCart);
  if (!stored) return emptyCart();
  const cartItems = stored.cartItems.filter((i) => typeof i?._id === 'string' && Number.isInteger(i.qty) && i.qty > 0);
  // The settings last seen, until GET /api/settings answers: usually still the shop's.
  const pricing = isPricing(stored.pricing) ? stored.pricing : DEFAULT_PRICING;
  return { ...stored, cartItems, pricing, ...orderTotals(cartItems, pricing) };
}

const cartSlice = createSlice({
  name: 'cart',
  initialState: initialCart,
  reducers: {
    /** Adding a line already in the cart (the same product, the same variant) replaces it, qty included; otherwise it appends. */
    addToCart(state, action: PayloadAction<CartItem>) {
      const item = action.payload;
      const index = state.cartItems.findIndex((i) => lineKey(i) === lineKey(item));
      if (index >= 0) state.cartItems[index] = item;
      else state.cartItems.push(item);
      recompute(state);
    },
    /** Removes the line of this lineKey. */
    removeFromCart(state, action: PayloadAction<string>) {
      state.cartItems = state.cartItems.filter((i) => lineKey(i) !== action.payload);
      recompute(state);
    },
    /**
     * A line's product as the shop sells it now: its name, photo, price and stock follow (the price
     * it was added at kept while they differ), a qty
     * above the stock comes down to it, and a product the shop no longer sells leaves the cart.
     * A line out of stock stays, so the shopper sees why (the server refuses to order it).
     */
    refreshCartLine(state, action: PayloadAction<FreshCartLine>) {
      const fresh = action.payload;
      const line = state.cartItems.find((i) => lineKey(i) === fresh.key);
      if (!line) return;
      if (fresh.gone) {
        state.cartItems = state.cartItems.filter((i) => lineKey(i) !== fresh.key);
      } else {
        if (fresh.price !== line.price) line.priceWas ??= line.price;
        if (fresh.price === line.priceWas) delete line.priceWas;
        Object.assign(line, { name: fresh.name, image: fresh.image, price: fresh.price, countInStock: fresh.countInStock });
        if (fresh.countInStock >= 1 && line.qty > fresh.countInStock) line.qty = fresh.countInStock;
      }
      recompute(state);
    },
    saveShippingAddress(state, action: PayloadAction<ShippingAddress>) {
      state.shippingAddress = action.payload;
      recompute(state);
    },
    /** After an order is placed: the items go, and so does the stored cart (docs/product-rules.md, States). */
    clearCartItems(state) {
      state.cartItems = [];
      Object.assign(state, orderTotals([], state.pricing));
    },
    /** Log Out clears the cart and the shipping address; the shop's prices stay. */
    resetCart(state) {
      return emptyCart(state.pricing);
    },
  },
  extraReducers: (builder) => {
    // The shop's settings arrived, or an admin changed them: the totals follow at once.
    builder.addMatcher(shopSettingsApi.endpoints.getSettings.matchFulfilled, (state, action) => {
      const { taxPercent, shippingFee, freeShippingThreshold } = action.payload;
      state.pricing = { taxPercent, shippingFee, freeShippingThreshold };
      Object.assign(state, orderTotals(state.cartItems, state.pricing));
    });
  },
});

export const { addToCart, removeFromCart, refreshCartLine, saveShippingAddress, clearCartItems, resetCart } = cartSlice.actions;
export const cartReducer = cartSlice.reducer;

/** How many units the cart holds, for the navigation badge. */
export const cartCount = (cart: CartState) => cart.cartItems.reduce((n, i) => n + i.qty, 0);
