import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { type AdminUserUpdateBody, adminUserUpdateBody, type PublicUser } from '../../../shared/schemas/users';
import FormField from '../../components/form/form-field';
import { fieldMessages, useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { setCredentials } from '../../stores/auth-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { useGetUserDetailsQuery, useUpdateUserMutation } from './api';

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

/** The user edit form as typed. */
interface UserFields {
  name: string;
  email: string;
  password: string;
  isAdmin: boolean;
}

const fields = adminUserUpdateBody.shape;

function UserEditForm({ user, signedInId }: { user: PublicUser; signedInId: string }) {
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const form = useZodForm<UserFields, AdminUserUpdateBody>(adminUserUpdateBody, {
    name: user.name,
    email: user.email,
    password: '',
    isAdmin: user.isAdmin,
  });
  const [updateUser, { isLoading: updating }] = useUpdateUserMutation();

  // An empty password means "keep the current one" (docs/product-rules.md, Validation) and passes.
  const submit = form.handleSubmit(
    async ({ name, email, password, isAdmin }) => {
      try {
        const updated = await updateUser({
          id: user._id,
          name: name ?? user.name,
          email: email ?? user.email,
          password: password ?? '',
          isAdmin: isAdmin ?? user.isAdmin,
        }).unwrap();
        // Editing your own account here changes the name and rights the header shows.
        if (updated._id === signedInId) dispatch(setCredentials(updated));
        toastSuccess('User updated.');
        navigate(paths.admin.users);
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
      <FormField form={form} name="name" id="user-name" label="Name" schema={fields.name} autoComplete="off" required />
      <FormField
        form={form}
        name="email"
        id="user-email"
        label="Email"
        type="email"
        schema={fields.email}
        autoComplete="off"
        required
      />
      <FormField
        form={form}
        name="password"
        id="user-password"
        label="Password"
        type="password"
        schema={fields.password}
        autoComplete="new-password"
        hint="Leave blank to keep the current password"
      />
      <FormField form={form} name="isAdmin" id="user-is-admin" label="Is Admin" control="checkbox" />

      <Button type="submit" variant="dark" disabled={updating}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
