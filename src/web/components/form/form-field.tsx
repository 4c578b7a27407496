import type { ComponentProps, ReactNode } from 'react';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { type FieldValues, get, type Path, type UseFormReturn, useFormState } from 'react-hook-form';
import type { z } from 'zod';
import { limitsOf } from './limits';

/** What the box is: a one-line input (of `type`), a textarea, a select of `children`, a checkbox. */
export type FieldControl = 'input' | 'textarea' | 'select' | 'checkbox';

type InputAttributes = Pick<
  ComponentProps<'input'>,
  | 'type'
  | 'autoComplete'
  | 'inputMode'
  | 'placeholder'
  | 'list'
  | 'pattern'
  | 'spellCheck'
  | 'autoCapitalize'
  | 'autoFocus'
  | 'required'
  | 'step'
  | 'maxLength'
  | 'min'
  | 'max'
>;

export interface FormFieldProps<Fields extends FieldValues> extends InputAttributes {
  // The form's output type does not matter here: a field only registers, reads and shows errors.
  // biome-ignore lint/suspicious/noExplicitAny: any output type of the form is fine for one field
  form: UseFormReturn<Fields, unknown, any>;
  name: Path<Fields>;
  label: ReactNode;
  /** The control's id (and the label's `for`); the field's name when not given. */
  id?: string;
  control?: FieldControl;
  /** Help shown under the box and read with it. */
  hint?: ReactNode;
  /** The field's shared schema: its maxLength/min/max become the control's, never a copy in the screen. */
  schema?: z.ZodType;
  /** A unit inside the box's frame: "Ksh", "%". */
  prefix?: ReactNode;
  suffix?: ReactNode;
  rows?: number;
  disabled?: boolean;
  /** The group's classes; one field's spacing below it by default. */
  className?: string;
  /** Classes of the control itself, e.g. "tap-target". */
  controlClassName?: string;
  /** A select's options; after any other control (a datalist, say). */
  children?: ReactNode;
}

/**
 * One labelled field of a form: the label, the control, the message when the form refuses it
 * (`isInvalid`, `aria-invalid`, the message and hint tied to the control by `aria-describedby`),
 * an optional hint, and the limits of the field's shared schema. Every form of the app lays its
 * fields out with this, so they look, read and behave alike.
 */
export default function FormField<Fields extends FieldValues>({
  form,
  name,
  label,
  id = name,
  control = 'input',
  hint,
  schema,
  prefix,
  suffix,
  className = 'mb-3',
  controlClassName,
  children,
  ...attributes
}: FormFieldProps<Fields>) {
  const { errors } = useFormState({ control: form.control, name });
  const message = (get(errors, name) as { message?: unknown } | undefined)?.message;
  const error = typeof message === 'string' && message !== '' ? message : undefined;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  const aria = { 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy } as const;
  const registered = form.register(name);

  const feedback = (
    <Form.Control.Feedback type="invalid" id={errorId}>
      {error}
    </Form.Control.Feedback>
  );
  const hintText = hint ? <Form.Text id={hintId}>{hint}</Form.Text> : null;

  if (control === 'checkbox') {
    return (
      <Form.Group controlId={id} className={className}>
        <Form.Check
          type="checkbox"
          label={label}
          isInvalid={!!error}
          className={controlClassName}
          disabled={attributes.disabled}
          {...registered}
          {...aria}
        />
        {error && (
          <div className="invalid-feedback d-block" id={errorId}>
            {error}
          </div>
        )}
        {hintText}
      </Form.Group>
    );
  }

  const limits = schema ? limitsOf(schema) : {};
  const box =
    control === 'select' ? (
      <Form.Select isInvalid={!!error} className={controlClassName} disabled={attributes.disabled} {...registered} {...aria}>
        {children}
      </Form.Select>
    ) : (
      <Form.Control
        as={control === 'textarea' ? 'textarea' : 'input'}
        isInvalid={!!error}
        className={controlClassName}
        {...limits}
        {...attributes}
        {...registered}
        {...aria}
      />
    );
  const extra = control === 'select' ? null : children;

  return (
    <Form.Group controlId={id} className={className}>
      <Form.Label>{label}</Form.Label>
      {prefix || suffix ? (
        <InputGroup hasValidation>
          {prefix && <InputGroup.Text>{prefix}</InputGroup.Text>}
          {box}
          {suffix && <InputGroup.Text>{suffix}</InputGroup.Text>}
          {feedback}
        </InputGroup>
      ) : (
        <>
          {box}
          {extra}
          {feedback}
        </>
      )}
      {hintText}
    </Form.Group>
  );
}
