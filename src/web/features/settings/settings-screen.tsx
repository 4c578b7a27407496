import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { type SettingsUpdateBody, type ShopSettings, settingsUpdateBody } from '../../../shared/schemas/settings';
import FormField from '../../components/form/form-field';
import { fieldMessages, useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useGetAdminSettingsQuery, useUpdateSettingsMutation } from './api';

/** The shop's settings (docs/settings.md): its name and contacts, prices, stock and the merchant's alerts. */
export default function SettingsScreen() {
  const { data: settings, isLoading, error } = useGetAdminSettingsQuery();
  return (
    <>
      <PageTitle title="Shop Settings" />
      <FormContainer>
        <h1 className="h2 my-3">Shop Settings</h1>
        {error ? (
          <Message variant="danger">{errorMessage(error)}</Message>
        ) : isLoading || !settings ? (
          <Loader label="Loading the settings…" />
        ) : (
          <SettingsForm key={settings.updatedAt} settings={settings} />
        )}
      </FormContainer>
    </>
  );
}

/** The settings form as typed: numbers stay text until checked. */
interface SettingsFields {
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

/** 254712345678 as the merchant typed it: 0712345678. */
function localPhone(msisdn: string): string {
  return msisdn.startsWith('254') ? `0${msisdn.slice(3)}` : msisdn;
}

function fieldsOf(settings: ShopSettings): SettingsFields {
  return {
    shopName: settings.shopName,
    contactPhone: localPhone(settings.contactPhone),
    contactEmail: settings.contactEmail,
    taxPercent: String(settings.taxPercent),
    shippingFee: String(settings.shippingFee),
    freeShippingThreshold: String(settings.freeShippingThreshold),
    lowStockThreshold: String(settings.lowStockThreshold),
    alertEmail: settings.alertEmail,
    alertOnUnpaidOrders: settings.alertOnUnpaidOrders,
  };
}

const rules = settingsUpdateBody.shape;

function SettingsForm({ settings }: { settings: ShopSettings }) {
  const form = useZodForm<SettingsFields, SettingsUpdateBody>(settingsUpdateBody, fieldsOf(settings));
  const [updateSettings, { isLoading: updating }] = useUpdateSettingsMutation();

  // Refused fields show their message under the box and as a toast, as on the other admin forms.
  const submit = form.handleSubmit(
    async (changed) => {
      try {
        await updateSettings(changed).unwrap();
        toastSuccess('Settings updated.');
      } catch (err) {
        placeServerErrors(form, err);
        toastErrors(err);
      }
    },
    (errors) => {
      for (const message of fieldMessages(errors)) toastError(message);
    },
  );

  return (
    <Form onSubmit={submit} noValidate>
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

      <Button type="submit" variant="dark" disabled={updating}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
