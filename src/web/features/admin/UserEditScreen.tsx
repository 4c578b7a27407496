import { type ChangeEvent, type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import type { PublicUser } from '../../../shared/schemas/users';
import { paths } from '../../app/paths';
import { useAppDispatch, useAppSelector } from '../../app/store';
import FormContainer from '../../components/FormContainer';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { setCredentials } from '../account/authSlice';
import { useGetUserDetailsQuery, useUpdateUserMutation } from './api';
import { checkUser, type UserFieldErrors, type UserFields } from './userForm';

/** The server's own refusals, used before asking it when the answer is already known. */
const SIGN_IN_FIRST = 'Please sign in to continue';
const ADMINS_ONLY = 'This is for admins only';

/**
 * Edit a user (docs/product-rules.md, Screens: User edit). The route sits outside the admin guard, as the specification
 * places it, so this screen refuses guests and shoppers itself: a message, no form, no data.
 */
export default function UserEditScreen() {
  const { id = '' } = useParams();
  const location = useLocation();
  const me = useAppSelector((s) => s.auth.user);
  const allowed = me?.isAdmin === true;
  const { data: user, isLoading, error } = useGetUserDetailsQuery(id, { skip: !allowed });

  if (!me) {
    return (
      <>
        <PageTitle title="Edit User" />
        <Message variant="danger">
          {SIGN_IN_FIRST}:{' '}
          <Link to={paths.login(location.pathname)} className="alert-link">
            Sign In
          </Link>
        </Message>
      </>
    );
  }
  if (!allowed || error) {
    return (
      <>
        <PageTitle title="Edit User" />
        <Message variant="danger">{allowed ? errorMessage(error) : ADMINS_ONLY}</Message>
      </>
    );
  }

  return (
    <>
      <PageTitle title="Edit User" />
      <Link to={paths.admin.users} className="btn btn-light my-2">
        Back
      </Link>
      <FormContainer>
        <h1 className="h2 mb-3">Edit User</h1>
        {isLoading || !user ? (
          <Loader label="Loading the user…" />
        ) : (
          <UserEditForm key={user._id} user={user} signedInId={me._id} />
        )}
      </FormContainer>
    </>
  );
}

function UserEditForm({ user, signedInId }: { user: PublicUser; signedInId: string }) {
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const [fields, setFields] = useState<UserFields>({ name: user.name, email: user.email, password: '', isAdmin: user.isAdmin });
  const [errors, setErrors] = useState<UserFieldErrors>({});
  const [updateUser, { isLoading: updating }] = useUpdateUserMutation();

  function change(field: keyof UserFieldErrors) {
    return (event: ChangeEvent<HTMLInputElement>) => {
      const value = event.target.value;
      setFields((current) => ({ ...current, [field]: value }));
      setErrors((current) => ({ ...current, [field]: undefined }));
    };
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const check = checkUser(fields);
    if (!check.ok) {
      setErrors(check.errors);
      for (const message of Object.values(check.errors)) if (message) toastError(message);
      return;
    }
    try {
      const updated = await updateUser({ id: user._id, ...check.user }).unwrap();
      // Editing your own account here changes the name and rights the header shows.
      if (updated._id === signedInId) dispatch(setCredentials(updated));
      toastSuccess('User updated.');
      navigate(paths.admin.users);
    } catch (err) {
      toastErrors(err);
    }
  }

  return (
    <Form onSubmit={submit} noValidate>
      <Form.Group controlId="user-name" className="mb-3">
        <Form.Label>Name</Form.Label>
        <Form.Control
          value={fields.name}
          onChange={change('name')}
          autoComplete="off"
          maxLength={100}
          isInvalid={!!errors.name}
          required
        />
        <Form.Control.Feedback type="invalid">{errors.name}</Form.Control.Feedback>
      </Form.Group>

      <Form.Group controlId="user-email" className="mb-3">
        <Form.Label>Email</Form.Label>
        <Form.Control
          type="email"
          value={fields.email}
          onChange={change('email')}
          autoComplete="off"
          maxLength={254}
          isInvalid={!!errors.email}
          required
        />
        <Form.Control.Feedback type="invalid">{errors.email}</Form.Control.Feedback>
      </Form.Group>

      <Form.Group controlId="user-password" className="mb-3">
        <Form.Label>Password</Form.Label>
        <Form.Control
          type="password"
          value={fields.password}
          onChange={change('password')}
          autoComplete="new-password"
          aria-describedby="user-password-help"
          isInvalid={!!errors.password}
        />
        <Form.Control.Feedback type="invalid">{errors.password}</Form.Control.Feedback>
        <Form.Text id="user-password-help">Leave blank to keep the current password</Form.Text>
      </Form.Group>

      <Form.Group controlId="user-is-admin" className="mb-3">
        <Form.Check
          type="checkbox"
          label="Is Admin"
          checked={fields.isAdmin}
          onChange={(e) => setFields((current) => ({ ...current, isAdmin: e.target.checked }))}
        />
      </Form.Group>

      <Button type="submit" variant="dark" disabled={updating}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
