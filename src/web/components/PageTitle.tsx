import { useEffect } from 'react';
import { SHOP_NAME } from '../../shared/constants';

/** Sets the browser tab's title for the current screen. */
export default function PageTitle({ title }: { title?: string }) {
  useEffect(() => {
    document.title = title ? `${title} | ${SHOP_NAME}` : `${SHOP_NAME}: shop online, pay with M-Pesa`;
  }, [title]);
  return null;
}
