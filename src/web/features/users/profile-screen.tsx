import { useEffect } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link } from 'react-router';
import { type ProfileUpdateBody, profileForm } from '../../../shared/schemas/users';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { errorMessage } from '../../lib/errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { setCredentials } from '../../stores/auth-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { useGetMyOrdersQuery } from '../orders/api';
import { EmailField, NameField, NewPasswordFields } from './account-fields';
import { useGetProfileQuery, useUpdateProfileMutation } from './api';
import MyOrdersTable from './my-orders-table';
import SubmitButton from './submit-button';

const NO_ORDERS =
  'There are no orders associated with your account. Please return to the order menu to place a new order or review existing ones.';

/** The signed-in shopper's details, editable, beside their orders (docs/product-rules.md, Screens: Profile). */
export default function ProfileScreen() {
  return (
    <Row className="g-4">
      <PageTitle title="User Profile" />
      <Col md={3}>
        <ProfileForm />
      </Col>
      <Col md={9}>
        <MyOrders />
      </Col>
    </Row>
  );
}

function ProfileForm() {
  // The router lets only signed-in users here; the stored user fills the form until the profile loads.
  const storedUser = useAppSelector((s) => s.auth.user);
  const userId = storedUser?._id ?? '';
  const profile = useGetProfileQuery(userId, { skip: !storedUser });
  const [updateProfile, { isLoading: isUpdating }] = useUpdateProfileMutation();
  const dispatch = useAppDispatch();

  const form = useZodForm(profileForm, {
    name: storedUser?.name ?? '',
    email: storedUser?.email ?? '',
    password: '',
    confirmPassword: '',
    currentPassword: '',
  });
  const [email, password] = form.watch(['email', 'password']);
  // A new email or password needs the current password; a new name alone does not.
  const savedEmail = profile.data?.email ?? storedUser?.email ?? '';
  const needsCurrentPassword = password !== '' || email.trim().toLowerCase() !== savedEmail;

  // Whenever a fresh profile arrives (first load, or after an update), show what the server holds.
  useEffect(() => {
    if (profile.data) {
      form.setValue('name', profile.data.name);
      form.setValue('email', profile.data.email);
    }
  }, [profile.data, form]);

  const submit = form.handleSubmit(async ({ name, email, password, currentPassword }) => {
    // An empty password means "keep the current one" (docs/product-rules.md, Validation).
    const body: ProfileUpdateBody = {
      _id: userId,
      name,
      email,
      ...(password && { password }),
      ...(currentPassword && { currentPassword }),
    };
    try {
      const updated = await updateProfile(body).unwrap();
      dispatch(setCredentials(updated));
      for (const field of ['password', 'confirmPassword', 'currentPassword'] as const) form.setValue(field, '');
      toastSuccess('User updated.');
    } catch (error) {
      placeServerErrors(form, error);
      toastErrors(error);
    }
  });

  return (
    <>
      <h1 className="h3 mb-3">User Profile</h1>
      {profile.isError && <Message variant="danger">Your profile could not be loaded: {errorMessage(profile.error)}</Message>}
      <Form noValidate onSubmit={submit}>
        <NameField form={form} />
        <EmailField form={form} />
        <NewPasswordFields form={form} optional />
        <FormField
          form={form}
          name="currentPassword"
          label="Current password"
          schema={profileForm.shape.currentPassword}
          type="password"
          autoComplete="current-password"
          required={needsCurrentPassword}
          hint="Needed to change your email or password."
        />
        <SubmitButton busy={isUpdating}>Update</SubmitButton>
      </Form>
    </>
  );
}

function MyOrders() {
  const { data: orders, isLoading, isError, error } = useGetMyOrdersQuery();

  let content: React.ReactNode;
  if (isLoading) content = <Loader label="Loading your orders…" />;
  else if (isError) content = <Message variant="danger">{errorMessage(error)}</Message>;
  else if (!orders || orders.length === 0)
    content = (
      <>
        <Message>{NO_ORDERS}</Message>
        <Link to={paths.home} className="btn btn-outline-dark">
          Back Home
        </Link>
      </>
    );
  else content = <MyOrdersTable orders={orders} />;

  return (
    <>
      <h2 className="h3 mb-3">My Orders</h2>
      {content}
    </>
  );
}
