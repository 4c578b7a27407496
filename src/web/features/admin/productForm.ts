// First, before any schema parses: no eval under the shop's CSP (see zod-jitless.ts).
import '../../zod-jitless';
import { productUpdateBody } from '../../../shared/schemas/products';
import type { ProductUpdate } from './api';

/** The product edit form as typed: numbers stay text until checked. */
export interface ProductFields {
  name: string;
  price: string;
  image: string;
  countInStock: string;
  category: string;
  description: string;
}

export type ProductFieldErrors = Partial<Record<keyof ProductFields, string>>;

export type ProductCheck = { ok: true; product: Omit<ProductUpdate, 'id'> } | { ok: false; errors: ProductFieldErrors };

const FIELDS: readonly (keyof ProductFields)[] = ['name', 'price', 'image', 'countInStock', 'category', 'description'];

function isField(key: PropertyKey | undefined): key is keyof ProductFields {
  return typeof key === 'string' && (FIELDS as readonly string[]).includes(key);
}

/**
 * Checks the form with the server's own schema, so the screen refuses exactly what the server
 * would, with the same messages, before anything is sent. Only the first message per field is kept.
 */
export function checkProduct(fields: ProductFields): ProductCheck {
  const parsed = productUpdateBody.safeParse(fields);
  if (!parsed.success) {
    const errors: ProductFieldErrors = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (isField(field) && !errors[field]) errors[field] = issue.message;
    }
    return { ok: false, errors };
  }
  const value = parsed.data;
  return {
    ok: true,
    product: {
      name: value.name ?? '',
      price: value.price ?? 0,
      image: value.image ?? '',
      countInStock: value.countInStock ?? 0,
      category: value.category ?? '',
      description: value.description ?? '',
    },
  };
}
