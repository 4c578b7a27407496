import { type FormEvent, useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { Navigate, useLocation, useNavigate } from 'react-router';
import type { ShippingAddress } from '../../../shared/schemas/orders';
import { paths } from '../../app/paths';
import { useAppDispatch, useAppSelector } from '../../app/store';
import CheckoutSteps from '../../components/CheckoutSteps';
import FormContainer from '../../components/FormContainer';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import { saveShippingAddress } from '../cart/cartSlice';
import { useGetMyOrdersQuery } from '../orders/api';
import { isShippingNotice } from './shippingAddress';

type AddressSuggestions = typeof import('./addressSuggestions');

/**
 * Loads the county, sub-county and ward suggestions in their own chunk once the form shows, so
 * the form is usable at once on a slow connection; without them it is plain free text.
 */
function useAddressSuggestions(): AddressSuggestions | null {
  const [suggestions, setSuggestions] = useState<AddressSuggestions | null>(null);
  useEffect(() => {
    let mounted = true;
    import('./addressSuggestions').then(
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

function ShippingForm() {
  const saved = useAppSelector((s) => s.cart.shippingAddress);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const suggestions = useAddressSuggestions();

  const [county, setCounty] = useState(saved.county ?? '');
  const [phoneNumber, setPhoneNumber] = useState(saved.phoneNumber ?? '');
  const [postalCode, setPostalCode] = useState(saved.postalCode ?? '');
  const [subCounty, setSubCounty] = useState(saved.sub_county ?? '');
  const [ward, setWard] = useState(saved.ward ?? '');

  const addressIncomplete = isShippingNotice(location.state) && location.state.addressIncomplete === true;

  // A browser with no address of its own (a new phone, or the cart cleared after an order) starts
  // from the address of the shopper's newest order, which the server keeps with it.
  const browserHasAddress = Object.values(saved).some(Boolean);
  const { data: myOrders } = useGetMyOrdersQuery(undefined, { skip: browserHasAddress });
  const [lookedAtLastOrder, setLookedAtLastOrder] = useState(false);
  const [filledFromLastOrder, setFilledFromLastOrder] = useState(false);
  const lastAddress = myOrders?.[0]?.shippingAddress;
  useEffect(() => {
    if (!lastAddress || lookedAtLastOrder) return;
    setLookedAtLastOrder(true);
    // Only into an untouched form: never over what the shopper has started typing.
    if ([county, phoneNumber, postalCode, subCounty, ward].some(Boolean)) return;
    setFilledFromLastOrder(true);
    setCounty(lastAddress.county);
    setPhoneNumber(lastAddress.phoneNumber);
    setPostalCode(lastAddress.postalCode);
    setSubCounty(lastAddress.sub_county);
    setWard(lastAddress.ward);
  }, [lastAddress, lookedAtLastOrder, county, phoneNumber, postalCode, subCounty, ward]);

  // The address form has no required fields (docs/product-rules.md, Validation): Place Order sends an incomplete address back.
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const address: ShippingAddress = {
      county: county.trim(),
      phoneNumber: phoneNumber.replace(/\s+/g, ''),
      postalCode: postalCode.replace(/\s+/g, ''),
      sub_county: subCounty.trim(),
      ward: ward.trim(),
    };
    dispatch(saveShippingAddress(address));
    navigate(paths.placeOrder);
  }

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
        <Form.Group className="mb-3" controlId="county">
          <Form.Label>County</Form.Label>
          <Form.Control
            list="county-options"
            autoComplete="address-level1"
            placeholder="e.g. Nairobi"
            value={county}
            onChange={(e) => setCounty(e.target.value)}
          />
          <Suggestions id="county-options" names={suggestions?.countyNames ?? []} />
        </Form.Group>
        <Form.Group className="mb-3" controlId="phoneNumber">
          <Form.Label>Phone Number</Form.Label>
          <Form.Control
            {...numericInput}
            autoComplete="tel-national"
            placeholder="e.g. 0711223344"
            value={phoneNumber}
            onChange={(e) => setPhoneNumber(e.target.value)}
          />
        </Form.Group>
        <Form.Group className="mb-3" controlId="postalCode">
          <Form.Label>Postal Code</Form.Label>
          <Form.Control
            {...numericInput}
            autoComplete="postal-code"
            placeholder="e.g. 00100"
            value={postalCode}
            onChange={(e) => setPostalCode(e.target.value)}
          />
        </Form.Group>
        <Form.Group className="mb-3" controlId="subCounty">
          <Form.Label>Sub County</Form.Label>
          <Form.Control
            list="sub-county-options"
            autoComplete="address-level2"
            placeholder="e.g. Westlands"
            value={subCounty}
            onChange={(e) => setSubCounty(e.target.value)}
          />
          <Suggestions id="sub-county-options" names={suggestions?.subCountyNames(county) ?? []} />
        </Form.Group>
        <Form.Group className="mb-4" controlId="ward">
          <Form.Label>Ward</Form.Label>
          <Form.Control
            list="ward-options"
            autoComplete="address-level3"
            placeholder="e.g. Parklands/Highridge"
            value={ward}
            onChange={(e) => setWard(e.target.value)}
          />
          <Suggestions id="ward-options" names={suggestions?.wardNames(county, subCounty) ?? []} />
        </Form.Group>
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
