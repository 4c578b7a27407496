import { type ChangeEvent, type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Spinner from 'react-bootstrap/Spinner';
import type { ShopSettings } from '../../../shared/schemas/settings';
import FormContainer from '../../components/FormContainer';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useGetAdminSettingsQuery, useUpdateSettingsMutation } from '../settings/api';
import { checkSettings, fieldsOf, type SettingsFieldErrors, type SettingsFields, type SettingsTextField } from './settingsForm';

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

interface FieldProps {
  field: SettingsTextField;
  label: string;
  fields: SettingsFields;
  errors: SettingsFieldErrors;
  change: (field: SettingsTextField) => (event: ChangeEvent<HTMLInputElement>) => void;
  help?: string;
  /** A unit shown inside the field's box: "Ksh", "%". */
  prefix?: string;
  suffix?: string;
  type?: 'text' | 'email' | 'tel';
  inputMode?: 'text' | 'decimal' | 'numeric' | 'email' | 'tel';
  maxLength?: number;
  autoComplete?: string;
  placeholder?: string;
}

/** One labelled box with its complaint and help, as the other admin edit screens lay them out. */
function Field({ field, label, fields, errors, change, help, prefix, suffix, type = 'text', ...input }: FieldProps) {
  const id = `settings-${field}`;
  const control = (
    <Form.Control
      type={type}
      value={fields[field]}
      onChange={change(field)}
      isInvalid={!!errors[field]}
      aria-describedby={help ? `${id}-help` : undefined}
      {...input}
    />
  );
  return (
    <Form.Group controlId={id} className="mb-3">
      <Form.Label>{label}</Form.Label>
      {prefix || suffix ? (
        <InputGroup hasValidation>
          {prefix && <InputGroup.Text>{prefix}</InputGroup.Text>}
          {control}
          {suffix && <InputGroup.Text>{suffix}</InputGroup.Text>}
          <Form.Control.Feedback type="invalid">{errors[field]}</Form.Control.Feedback>
        </InputGroup>
      ) : (
        <>
          {control}
          <Form.Control.Feedback type="invalid">{errors[field]}</Form.Control.Feedback>
        </>
      )}
      {help && <Form.Text id={`${id}-help`}>{help}</Form.Text>}
    </Form.Group>
  );
}

function SettingsForm({ settings }: { settings: ShopSettings }) {
  const [fields, setFields] = useState<SettingsFields>(() => fieldsOf(settings));
  const [errors, setErrors] = useState<SettingsFieldErrors>({});
  const [updateSettings, { isLoading: updating }] = useUpdateSettingsMutation();

  function change(field: SettingsTextField) {
    return (event: ChangeEvent<HTMLInputElement>) => {
      const value = event.target.value;
      setFields((current) => ({ ...current, [field]: value }));
      // A corrected field stops showing its old complaint.
      setErrors((current) => ({ ...current, [field]: undefined }));
    };
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const check = checkSettings(fields);
    if (!check.ok) {
      setErrors(check.errors);
      for (const message of Object.values(check.errors)) if (message) toastError(message);
      return;
    }
    try {
      await updateSettings(check.settings).unwrap();
      toastSuccess('Settings updated.');
    } catch (err) {
      toastErrors(err);
    }
  }

  const shared = { fields, errors, change };
  return (
    <Form onSubmit={submit} noValidate>
      <fieldset className="mb-2">
        <legend className="h5">Shop</legend>
        <Field {...shared} field="shopName" label="Shop name" maxLength={60} autoComplete="organization" />
        <Field
          {...shared}
          field="contactPhone"
          label="Contact phone"
          type="tel"
          inputMode="tel"
          maxLength={20}
          placeholder="0712 345 678"
          help="A Safaricom number, shown in the footer. Leave empty to show none."
        />
        <Field
          {...shared}
          field="contactEmail"
          label="Contact email"
          type="email"
          inputMode="email"
          maxLength={254}
          placeholder="hello@example.co.ke"
          help="Shown in the footer. Leave empty to show none."
        />
      </fieldset>

      <fieldset className="mb-2">
        <legend className="h5">Prices</legend>
        <Field
          {...shared}
          field="taxPercent"
          label="Tax"
          suffix="%"
          inputMode="decimal"
          help="Charged on the items of every new order."
        />
        <Field {...shared} field="shippingFee" label="Delivery fee" prefix="Ksh" inputMode="decimal" />
        <Field
          {...shared}
          field="freeShippingThreshold"
          label="Free delivery above"
          prefix="Ksh"
          inputMode="decimal"
          help="Orders whose items come to more than this are delivered free."
        />
        <p className="small text-body-secondary">Orders already placed keep the prices they were placed with.</p>
      </fieldset>

      <fieldset className="mb-3">
        <legend className="h5">Stock and alerts</legend>
        <Field
          {...shared}
          field="lowStockThreshold"
          label="Low-stock threshold"
          inputMode="numeric"
          help="An order that leaves a product with this many or fewer sends a low-stock alert."
        />
        <Field
          {...shared}
          field="alertEmail"
          label="Send merchant alerts to"
          type="email"
          inputMode="email"
          maxLength={254}
          placeholder="owner@example.co.ke"
          help="Paid orders, low stock and payment exceptions. Leave empty to send no alerts."
        />
        <Form.Group controlId="settings-alertOnUnpaidOrders">
          <Form.Check
            type="checkbox"
            label="Also alert when an order is placed, before it is paid"
            checked={fields.alertOnUnpaidOrders}
            onChange={(e) => setFields((current) => ({ ...current, alertOnUnpaidOrders: e.target.checked }))}
          />
        </Form.Group>
      </fieldset>

      <Button type="submit" variant="dark" disabled={updating}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
