import type { FieldValues, Path, UseFormReturn } from 'react-hook-form';
import { PASSWORD_MIN_LENGTH } from '../../../shared/constants';
import { email, newPassword, userName } from '../../../shared/schemas/users';
import FormField from '../../components/form/form-field';

// The fields below belong to forms that have them; any output type of those forms will do.
// biome-ignore lint/suspicious/noExplicitAny: see above
type FormWith<Fields extends FieldValues> = UseFormReturn<Fields, unknown, any>;

/** The labelled name field of the sign-up and profile forms. */
export function NameField<Fields extends { name: string }>({ form }: { form: FormWith<Fields> }) {
  return (
    <FormField
      form={form}
      name={'name' as Path<Fields>}
      label="Name"
      schema={userName}
      autoComplete="name"
      autoCapitalize="words"
      required
    />
  );
}

/** The labelled email field of the sign-in, sign-up, forgot-password and profile forms. */
export function EmailField<Fields extends { email: string }>({ form }: { form: FormWith<Fields> }) {
  return (
    <FormField
      form={form}
      name={'email' as Path<Fields>}
      label="Email Address"
      schema={email}
      type="email"
      inputMode="email"
      autoComplete="email"
      autoCapitalize="none"
      spellCheck={false}
      required
    />
  );
}

/** A new password and its confirmation (sign-up, reset and profile); the form's schema compares them. */
export function NewPasswordFields<Fields extends { password: string; confirmPassword: string }>({
  form,
  label = 'Password',
  optional = false,
}: {
  form: FormWith<Fields>;
  label?: string;
  /** On the profile a blank password keeps the current one. */
  optional?: boolean;
}) {
  return (
    <>
      <FormField
        form={form}
        name={'password' as Path<Fields>}
        id="password"
        label={label}
        schema={newPassword}
        type="password"
        autoComplete="new-password"
        required={!optional}
        hint={`${optional ? 'Leave blank to keep it. ' : ''}At least ${PASSWORD_MIN_LENGTH} characters.`}
      />
      <FormField
        form={form}
        name={'confirmPassword' as Path<Fields>}
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        required={!optional}
      />
    </>
  );
}
