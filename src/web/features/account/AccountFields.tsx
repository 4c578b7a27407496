import Form from 'react-bootstrap/Form';
import { PASSWORD_MIN_LENGTH } from '../../../shared/constants';

/** The labelled email field of the sign-in, sign-up, forgot-password and profile forms. */
export function EmailField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Form.Group className="mb-3" controlId="email">
      <Form.Label>Email Address</Form.Label>
      <Form.Control
        type="email"
        inputMode="email"
        autoComplete="email"
        autoCapitalize="none"
        spellCheck={false}
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </Form.Group>
  );
}

export interface NewPasswordFieldsProps {
  label?: string;
  password: string;
  confirmPassword: string;
  onPassword: (value: string) => void;
  onConfirmPassword: (value: string) => void;
  /** On the profile a blank password keeps the current one. */
  optional?: boolean;
}

/** A new password and its confirmation (sign-up, reset and profile); the screens compare them. */
export function NewPasswordFields({
  label = 'Password',
  password,
  confirmPassword,
  onPassword,
  onConfirmPassword,
  optional = false,
}: NewPasswordFieldsProps) {
  return (
    <>
      <Form.Group className="mb-3" controlId="password">
        <Form.Label>{label}</Form.Label>
        <Form.Control
          type="password"
          autoComplete="new-password"
          required={!optional}
          aria-describedby="password-help"
          value={password}
          onChange={(e) => onPassword(e.target.value)}
        />
        <Form.Text id="password-help">
          {optional && 'Leave blank to keep it. '}At least {PASSWORD_MIN_LENGTH} characters.
        </Form.Text>
      </Form.Group>
      <Form.Group className="mb-3" controlId="confirmPassword">
        <Form.Label>Confirm Password</Form.Label>
        <Form.Control
          type="password"
          autoComplete="new-password"
          required={!optional}
          value={confirmPassword}
          onChange={(e) => onConfirmPassword(e.target.value)}
        />
      </Form.Group>
    </>
  );
}
