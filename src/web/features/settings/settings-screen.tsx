import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { type SettingsUpdateBody, type ShopSettings, settingsUpdateBody } from '../../../shared/schemas/settings';
import { fieldMessages, useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useGetAdminSettingsQuery, useUpdateSettingsMutation } from './api';
import { AlertsFieldset, PricesFieldset, type SettingsFields, ShopFieldset } from './settings-fieldsets';

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
      <ShopFieldset form={form} />
      <PricesFieldset form={form} />
      <AlertsFieldset form={form} />

      <Button type="submit" variant="dark" disabled={updating}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
