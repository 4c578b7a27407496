import { type RefObject, useEffect, useState } from 'react';
import { ToastContainer } from 'react-toastify';
import 'react-toastify/dist/ReactToastify.css';

/**
 * How far down the element reaches on screen: 0 once it has scrolled away. Measured again as the
 * page scrolls or the element changes size (the payment banner comes and goes under the header).
 */
function useBottomOnScreen(element: RefObject<HTMLElement | null>): number {
  const [bottom, setBottom] = useState(0);
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    const measure = () => setBottom(Math.max(0, Math.round(target.getBoundingClientRect().bottom)));
    measure();
    const resizes = new ResizeObserver(measure);
    resizes.observe(target);
    window.addEventListener('scroll', measure, { passive: true });
    window.addEventListener('resize', measure);
    return () => {
      resizes.disconnect();
      window.removeEventListener('scroll', measure);
      window.removeEventListener('resize', measure);
    };
  }, [element]);
  return bottom;
}

/**
 * Toasts top-right for 5 s (docs/product-rules.md, Constants), loaded with the first toast
 * (lib/toast.ts), which shows at most two at once; compact on a phone (styles.css). They start
 * below `below` (the header and the payment banner) while it is on screen, so that for their 5 s
 * they never cover its links: on a 360 px phone the header's right-hand end is the cart and the menu.
 */
export default function Toasts({ below }: { below: RefObject<HTMLElement | null> }) {
  const top = useBottomOnScreen(below);
  return (
    <ToastContainer
      position="top-right"
      autoClose={5000}
      newestOnTop
      style={{ top: `calc(max(${top}px, env(safe-area-inset-top)) + 0.5rem)` }}
    />
  );
}
