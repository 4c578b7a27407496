import { ToastContainer } from 'react-toastify';
import 'react-toastify/dist/ReactToastify.css';

/**
 * Toasts top-right for 5 s (docs/product-rules.md, Constants); loaded with the first toast
 * (lib/toast.ts), which shows at most two at once. Compact on a phone (styles.css).
 */
export default function Toasts() {
  return <ToastContainer position="top-right" autoClose={5000} newestOnTop />;
}
