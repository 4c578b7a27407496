import type { ProductDetail, ProductVariant } from '../../../shared/schemas/products';
import { api } from '../../lib/api';
import type { CartItem, FreshCartLine } from '../../stores/cart-slice';
import { lineKey } from '../../stores/cart-slice';

/**
 * The cart's one call: each line's product as the shop sells it now (GET /api/products/{id},
 * answered from the catalogue cache), or gone. A cart is kept in the browser for days: the merchant
 * may have changed the price, sold the last units or removed the product meanwhile.
 */
/** A cart line's product as the shop sells it now (with its variants, if it has any), or gone. */
export type CartProductNow =
  | { _id: string; gone: false; name: string; image: string; price: number; countInStock: number; variants: ProductVariant[] }
  | { _id: string; gone: true };

/** What a line is now: its product's, or its variant's price, stock and photo; gone with the product or the variant. */
export function freshLine(item: CartItem, now: CartProductNow): FreshCartLine {
  const key = lineKey(item);
  if (now.gone) return { key, gone: true };
  const { name, image, price, countInStock } = now;
  if (!item.variantId)
    return now.variants.length > 0 ? { key, gone: true } : { key, gone: false, name, image, price, countInStock };
  const variant = now.variants.find((v) => v._id === item.variantId);
  if (!variant) return { key, gone: true };
  return { key, gone: false, name, image: variant.image ?? image, price: variant.price, countInStock: variant.countInStock };
}

export const cartApi = api.injectEndpoints({
  endpoints: (build) => ({
    getCartProduct: build.query<CartProductNow, string>({
      async queryFn(id, _api, _extraOptions, baseQuery) {
        const result = await baseQuery(`/products/${encodeURIComponent(id)}`);
        if (result.error) {
          // Not found (or an id the shop never made): an answer about the line, not a failure to show.
          const status = result.error.status;
          return status === 404 || status === 400 ? { data: { _id: id, gone: true } } : { error: result.error };
        }
        const { name, image, price, countInStock, variants = [] } = result.data as ProductDetail;
        return { data: { _id: id, gone: false, name, image, price, countInStock, variants } };
      },
      providesTags: (_result, _error, id) => [{ type: 'Product', id }],
    }),
  }),
});

export const { useGetCartProductQuery } = cartApi;
