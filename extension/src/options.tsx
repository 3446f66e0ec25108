// Plasmo entry: the options page (opened from chrome://extensions or the popup's ⚙ button).
import './style.css';
import { OptionsPage } from './ui/OptionsPage';

export default function OptionsEntry() {
  return <OptionsPage />;
}
