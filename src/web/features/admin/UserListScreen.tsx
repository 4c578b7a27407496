import { useState } from 'react';
import Table from 'react-bootstrap/Table';
import type { PublicUser } from '../../../shared/schemas/users';
import { paths } from '../../app/paths';
import ConfirmDialog from '../../components/ConfirmDialog';
import { CheckIcon, CrossIcon, EditIcon } from '../../components/icons';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import { errorMessage } from '../../lib/errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { useDeleteUserMutation, useGetUsersQuery } from './api';
import { ActionsHeader, IdCell, RowActions } from './TableParts';
import '../../styles/tables.scss';

/** Every account, with edit and delete (docs/product-rules.md, Screens: Admin user list). The server refuses deleting yourself. */
export default function UserListScreen() {
  const { data: users, isLoading, error } = useGetUsersQuery();
  const [deleteUser, { isLoading: deleting, originalArgs: deletingId }] = useDeleteUserMutation();
  const [userToDelete, setUserToDelete] = useState<PublicUser | null>(null);

  async function confirmDelete() {
    const user = userToDelete;
    setUserToDelete(null);
    if (!user) return;
    try {
      const result = await deleteUser(user._id).unwrap();
      toastSuccess(result.msg);
    } catch (err) {
      toastErrors(err);
    }
  }

  return (
    <>
      <PageTitle title="Users" />
      <h1 className="h2 mb-3">Users</h1>
      {isLoading ? (
        <Loader label="Loading users…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !users || users.length === 0 ? (
        <Message>No users yet</Message>
      ) : (
        <Table striped bordered hover responsive size="sm" className="align-middle">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">NAME</th>
              <th scope="col">EMAIL</th>
              <th scope="col">ADMIN</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {users.map((user) => {
              const thisDeleting = deleting && deletingId === user._id;
              return (
                <tr key={user._id}>
                  <IdCell id={user._id} />
                  <td>{user.name}</td>
                  <td>
                    <a href={`mailto:${user.email}`}>{user.email}</a>
                  </td>
                  <td>
                    {user.isAdmin ? (
                      <CheckIcon className="text-success" title="Admin" />
                    ) : (
                      <CrossIcon className="text-danger" title="Not admin" />
                    )}
                  </td>
                  <RowActions
                    to={paths.admin.userEdit(user._id)}
                    linkLabel={`Edit ${user.name}`}
                    link={<EditIcon />}
                    deleteLabel={`Delete ${user.name}`}
                    deleting={thisDeleting}
                    onDelete={() => setUserToDelete(user)}
                  />
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}

      <ConfirmDialog
        show={userToDelete !== null}
        title="Confirm Deletion"
        body="Are you sure you want to delete this user?"
        confirmLabel="Delete"
        onConfirm={confirmDelete}
        onCancel={() => setUserToDelete(null)}
      />
    </>
  );
}
