import type { ProductDetail } from '../../../shared/schemas/products';
import { api } from '../../lib/api';
import type { FreshCartProduct } from '../../stores/cart-slice';

/**
 * The cart's one call: each line's product as the shop sells it now (GET /api/products/{id},
 * answered from the catalogue cache), or gone. A cart is kept in the browser for days: the merchant
 * may have changed the price, sold the last units or removed the product meanwhile.
 */
export const cartApi = api.injectEndpoints({
  endpoints: (build) => ({
    getCartProduct: build.query<FreshCartProduct, string>({
      async queryFn(id, _api, _extraOptions, baseQuery) {
        const result = await baseQuery(`/products/${encodeURIComponent(id)}`);
        if (result.error) {
          // Not found (or an id the shop never made): an answer about the line, not a failure to show.
          const status = result.error.status;
          return status === 404 || status === 400 ? { data: { _id: id, gone: true } } : { error: result.error };
        }
        const { name, image, price, countInStock } = result.data as ProductDetail;
        return { data: { _id: id, gone: false, name, image, price, countInStock } };
      },
      providesTags: (_result, _error, id) => [{ type: 'Product', id }],
    }),
  }),
});

export const { useGetCartProductQuery } = cartApi;
