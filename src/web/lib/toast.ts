import { toast } from 'react-toastify';
import { errorMessages } from './errors';

/** Shows each error msg of a failed call as an error toast (spec §8). */
export function toastErrors(error: unknown): void {
  for (const msg of errorMessages(error)) toast.error(msg);
}

export function toastSuccess(msg: string): void {
  toast.success(msg);
}
