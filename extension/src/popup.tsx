// Plasmo entry: the toolbar popup. `popup.html#pending` (or #wallet) opens on that tab.
import './style.css';
import { Popup, TABS, type TabName } from './ui/Popup';

const fromHash = (): TabName | undefined => {
  const h = globalThis.location?.hash.slice(1);
  return (TABS as readonly string[]).includes(h) ? (h as TabName) : undefined;
};

export default function PopupEntry() {
  return <Popup initialTab={fromHash()} />;
}
