import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import type { UseFormReturn } from 'react-hook-form';
import { Navigate, useLocation, useNavigate } from 'react-router';
import {
  type ShippingAddress,
  type ShippingAddressForm,
  shippingAddress,
  shippingAddressForm,
} from '../../../shared/schemas/orders';
import CheckoutSteps from '../../components/checkout-steps';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { saveShippingAddress } from '../../stores/cart-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { useGetMyOrdersQuery } from '../orders/api';
import { isShippingNotice } from './shipping-address';

type AddressSuggestions = typeof import('./address-suggestions');

/**
 * Loads the county, sub-county and ward suggestions in their own chunk once the form shows, so
 * the form is usable at once on a slow connection; without them it is plain free text.
 */
function useAddressSuggestions(): AddressSuggestions | null {
  const [suggestions, setSuggestions] = useState<AddressSuggestions | null>(null);
  useEffect(() => {
    let mounted = true;
    import('./address-suggestions').then(
      (module) => {
        if (mounted) setSuggestions(module);
      },
      () => {
        // Offline or a failed chunk: the fields still take free text.
      },
    );
    return () => {
      mounted = false;
    };
  }, []);
  return suggestions;
}

function Suggestions({ id, names }: { id: string; names: readonly string[] }) {
  return (
    <datalist id={id}>
      {names.map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  );
}

/** Phone and postal code bring up the numeric keypad on phones and stay digit strings ("00100" keeps its zeros). */
const numericInput = { type: 'tel', inputMode: 'numeric', pattern: '[0-9]*' } as const;

const fields = shippingAddressForm.shape;

/** The address as the form holds it: the saved one, or empty lines. */
function formValues(address: Partial<ShippingAddress>): ShippingAddressForm {
  return {
    county: address.county ?? '',
    phoneNumber: address.phoneNumber ?? '',
    postalCode: address.postalCode ?? '',
    sub_county: address.sub_county ?? '',
    ward: address.ward ?? '',
  };
}

/** The form as Place Order sent it back: each field it still needs says so, in the API's own words. */
function useIncompleteAddressErrors(
  form: UseFormReturn<ShippingAddressForm, unknown, ShippingAddress>,
  addressIncomplete: boolean,
) {
  useEffect(() => {
    if (!addressIncomplete) return;
    const check = shippingAddress.safeParse(form.getValues());
    const missing = new Map<keyof ShippingAddressForm, string>();
    for (const issue of check.success ? [] : check.error.issues) {
      const field = issue.path[0];
      // The first message of each field: "County is required", not what follows from it.
      if (typeof field === 'string' && field in fields && !missing.has(field as keyof ShippingAddressForm)) {
        missing.set(field as keyof ShippingAddressForm, issue.message);
      }
    }
    for (const [field, message] of missing) form.setError(field, { message });
  }, [addressIncomplete, form]);
}

/**
 * A browser with no address of its own (a new phone, or the cart cleared after an order) starts
 * from the address of the shopper's newest order, which the server keeps with it. Whether it did.
 */
function useLastOrderAddress(
  form: UseFormReturn<ShippingAddressForm, unknown, ShippingAddress>,
  saved: Partial<ShippingAddress>,
): boolean {
  const browserHasAddress = Object.values(saved).some(Boolean);
  const { data: myOrders } = useGetMyOrdersQuery(undefined, { skip: browserHasAddress });
  const [lookedAtLastOrder, setLookedAtLastOrder] = useState(false);
  const [filledFromLastOrder, setFilledFromLastOrder] = useState(false);
  const lastAddress = myOrders?.[0]?.shippingAddress;
  useEffect(() => {
    if (!lastAddress || lookedAtLastOrder) return;
    setLookedAtLastOrder(true);
    // Only into an untouched form: never over what the shopper has started typing.
    if (Object.values(form.getValues()).some(Boolean)) return;
    setFilledFromLastOrder(true);
    form.reset(formValues(lastAddress));
  }, [lastAddress, lookedAtLastOrder, form]);
  return filledFromLastOrder;
}

/** The address's five fields, with the county, sub-county and ward suggestions once they have loaded. */
function ShippingFields({ form }: { form: UseFormReturn<ShippingAddressForm, unknown, ShippingAddress> }) {
  const suggestions = useAddressSuggestions();
  const [county, subCounty] = form.watch(['county', 'sub_county']);
  return (
    <>
      <FormField
        form={form}
        name="county"
        label="County"
        schema={fields.county}
        list="county-options"
        autoComplete="address-level1"
        placeholder="e.g. Nairobi"
      >
        <Suggestions id="county-options" names={suggestions?.countyNames ?? []} />
      </FormField>
      <FormField
        form={form}
        name="phoneNumber"
        label="Phone Number"
        schema={fields.phoneNumber}
        {...numericInput}
        autoComplete="tel-national"
        placeholder="e.g. 0711223344"
      />
      <FormField
        form={form}
        name="postalCode"
        label="Postal Code"
        schema={fields.postalCode}
        {...numericInput}
        autoComplete="postal-code"
        placeholder="e.g. 00100"
      />
      <FormField
        form={form}
        name="sub_county"
        id="subCounty"
        label="Sub County"
        schema={fields.sub_county}
        list="sub-county-options"
        autoComplete="address-level2"
        placeholder="e.g. Westlands"
      >
        <Suggestions id="sub-county-options" names={suggestions?.subCountyNames(county) ?? []} />
      </FormField>
      <FormField
        form={form}
        name="ward"
        label="Ward"
        className="mb-4"
        schema={fields.ward}
        list="ward-options"
        autoComplete="address-level3"
        placeholder="e.g. Parklands/Highridge"
      >
        <Suggestions id="ward-options" names={suggestions?.wardNames(county, subCounty) ?? []} />
      </FormField>
    </>
  );
}

function ShippingForm() {
  const saved = useAppSelector((s) => s.cart.shippingAddress);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const form = useZodForm<ShippingAddressForm, ShippingAddress>(shippingAddressForm, formValues(saved));

  const addressIncomplete = isShippingNotice(location.state) && location.state.addressIncomplete === true;
  // Sent back by Place Order: the fields it still needs say so, in the API's own words.
  useIncompleteAddressErrors(form, addressIncomplete);
  const filledFromLastOrder = useLastOrderAddress(form, saved);

  // No field is required here (docs/product-rules.md, Validation): Place Order sends an incomplete address back.
  const submit = form.handleSubmit((address) => {
    dispatch(saveShippingAddress(address));
    navigate(paths.placeOrder);
  });

  return (
    <FormContainer>
      <PageTitle title="Shipping" />
      <CheckoutSteps step1 step2 />
      <h1 className="h3 mb-3">Shipping</h1>
      {addressIncomplete && <Message variant="warning">Please fill in every field of your address to place your order.</Message>}
      {filledFromLastOrder && (
        <p className="text-body-secondary small" data-testid="address-from-last-order">
          Filled in from your last order. Change anything that is different this time.
        </p>
      )}
      <Form noValidate onSubmit={submit}>
        <ShippingFields form={form} />
        <div className="d-grid d-sm-block">
          <Button type="submit" variant="dark" className="px-4">
            Continue
          </Button>
        </div>
      </Form>
    </FormContainer>
  );
}

/** The shipping address (docs/product-rules.md, Screens: Shipping): only with something in the cart. */
export default function ShippingScreen() {
  const cartIsEmpty = useAppSelector((s) => s.cart.cartItems.length === 0);
  if (cartIsEmpty) return <Navigate to={paths.cart} replace />;
  return <ShippingForm />;
}
