import { useEffect } from 'react';
import { useShopSettings } from '../lib/shop-settings';

/** Sets the browser tab's title for the current screen. */
export default function PageTitle({ title }: { title?: string }) {
  const { shopName } = useShopSettings();
  useEffect(() => {
    document.title = title ? `${title} | ${shopName}` : `${shopName}: shop online, pay with M-Pesa`;
  }, [title, shopName]);
  return null;
}
