import type { ShippingAddress } from '../../../shared/schemas/orders';

/** Navigation state Place Order sends back to Shipping when the saved address is incomplete. */
export interface ShippingNotice {
  addressIncomplete?: boolean;
}

export const isShippingNotice = (value: unknown): value is ShippingNotice =>
  typeof value === 'object' && value !== null && 'addressIncomplete' in value;

/** The saved address if all five fields are filled in (docs/product-rules.md, Validation), otherwise null. */
export function completeAddress(address: Partial<ShippingAddress>): ShippingAddress | null {
  const { county, phoneNumber, postalCode, sub_county, ward } = address;
  if (!county?.trim() || !phoneNumber?.trim() || !postalCode?.trim() || !sub_county?.trim() || !ward?.trim()) return null;
  return { county, phoneNumber, postalCode, sub_county, ward };
}
