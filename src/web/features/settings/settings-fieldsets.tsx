import type { UseFormReturn } from 'react-hook-form';
import { type SettingsUpdateBody, settingsUpdateBody } from '../../../shared/schemas/settings';
import FormField from '../../components/form/form-field';

/** The settings form as typed: numbers stay text until checked. */
export interface SettingsFields {
  shopName: string;
  contactPhone: string;
  contactEmail: string;
  taxPercent: string;
  shippingFee: string;
  freeShippingThreshold: string;
  lowStockThreshold: string;
  alertEmail: string;
  alertOnUnpaidOrders: boolean;
}

type SettingsForm = UseFormReturn<SettingsFields, unknown, SettingsUpdateBody>;

const rules = settingsUpdateBody.shape;

/** The shop as the footer shows it: its name and contacts. */
export function ShopFieldset({ form }: { form: SettingsForm }) {
  return (
    <fieldset className="mb-2">
      <legend className="h5">Shop</legend>
      <FormField
        form={form}
        name="shopName"
        id="settings-shopName"
        schema={rules.shopName}
        label="Shop name"
        autoComplete="organization"
      />
      <FormField
        form={form}
        name="contactPhone"
        id="settings-contactPhone"
        schema={rules.contactPhone}
        label="Contact phone"
        type="tel"
        inputMode="tel"
        placeholder="0712 345 678"
        hint="A Safaricom number, shown in the footer. Leave empty to show none."
      />
      <FormField
        form={form}
        name="contactEmail"
        id="settings-contactEmail"
        schema={rules.contactEmail}
        label="Contact email"
        type="email"
        inputMode="email"
        placeholder="hello@example.co.ke"
        hint="Shown in the footer. Leave empty to show none."
      />
    </fieldset>
  );
}

/** What an order costs: tax, delivery and free delivery. */
export function PricesFieldset({ form }: { form: SettingsForm }) {
  return (
    <fieldset className="mb-2">
      <legend className="h5">Prices</legend>
      <FormField
        form={form}
        name="taxPercent"
        id="settings-taxPercent"
        schema={rules.taxPercent}
        label="Tax"
        suffix="%"
        inputMode="decimal"
        hint="Charged on the items of every new order."
      />
      <FormField
        form={form}
        name="shippingFee"
        id="settings-shippingFee"
        schema={rules.shippingFee}
        label="Delivery fee"
        prefix="Ksh"
        inputMode="decimal"
      />
      <FormField
        form={form}
        name="freeShippingThreshold"
        id="settings-freeShippingThreshold"
        schema={rules.freeShippingThreshold}
        label="Free delivery above"
        prefix="Ksh"
        inputMode="decimal"
        hint="Orders whose items come to more than this are delivered free."
      />
      <p className="small text-body-secondary">Orders already placed keep the prices they were placed with.</p>
    </fieldset>
  );
}

/** The low-stock threshold, and where and when the merchant's alerts go. */
export function AlertsFieldset({ form }: { form: SettingsForm }) {
  return (
    <fieldset className="mb-3">
      <legend className="h5">Stock and alerts</legend>
      <FormField
        form={form}
        name="lowStockThreshold"
        id="settings-lowStockThreshold"
        schema={rules.lowStockThreshold}
        label="Low-stock threshold"
        inputMode="numeric"
        hint="An order that leaves a product with this many or fewer sends a low-stock alert."
      />
      <FormField
        form={form}
        name="alertEmail"
        id="settings-alertEmail"
        schema={rules.alertEmail}
        label="Send merchant alerts to"
        type="email"
        inputMode="email"
        placeholder="owner@example.co.ke"
        hint="Paid orders, low stock and payment exceptions. Leave empty to send no alerts."
      />
      <FormField
        form={form}
        name="alertOnUnpaidOrders"
        id="settings-alertOnUnpaidOrders"
        label="Also alert when an order is placed, before it is paid"
        control="checkbox"
        className=""
      />
    </fieldset>
  );
}
