import { useEffect, useState } from 'react';
import { ToastContainer } from 'react-toastify';
import 'react-toastify/dist/ReactToastify.css';

/**
 * How far down the page's header reaches on screen: 0 once it has scrolled away. Toasts start
 * below it, so that for their 5 s they never cover the cart, the menu or the search box (on a
 * 360 px phone the header's right-hand end is all buttons).
 */
function useHeaderBottom(): number {
  const [bottom, setBottom] = useState(0);
  useEffect(() => {
    const header = document.querySelector('header');
    if (!header) return;
    const measure = () => setBottom(Math.max(0, Math.round(header.getBoundingClientRect().bottom)));
    measure();
    window.addEventListener('scroll', measure, { passive: true });
    window.addEventListener('resize', measure);
    return () => {
      window.removeEventListener('scroll', measure);
      window.removeEventListener('resize', measure);
    };
  }, []);
  return bottom;
}

/**
 * Toasts top-right for 5 s (docs/product-rules.md, Constants), just below the header; loaded with
 * the first toast (lib/toast.ts), which shows at most two at once. Compact on a phone (styles.css).
 */
export default function Toasts() {
  const headerBottom = useHeaderBottom();
  return (
    <ToastContainer
      position="top-right"
      autoClose={5000}
      newestOnTop
      style={{ top: `calc(max(${headerBottom}px, env(safe-area-inset-top)) + 0.5rem)` }}
    />
  );
}
