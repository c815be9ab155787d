// The dashboard's entry: the stylesheet, the owner's language, and the app mounted into #app
// (drawn again, whole, when the language changes).
import { render } from 'preact';
import './style.css';
import { App } from './app';
import { startLanguage, useLanguage } from './i18n';

function Root() {
  // A new language redraws every view below (none is memoised), keeping what each holds.
  useLanguage();
  return <App />;
}

void startLanguage().finally(() => render(<Root />, document.getElementById('app')!));
