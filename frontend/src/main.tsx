import '@/app/global.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app/app';
import { createAppRouter } from '@/app/router';
import { languageAtom, store } from '@/app/store';
import { captureLandingParameters } from '@/lib/api-client';
import { installGlobalErrorReporting } from '@/lib/error-report';
import { initI18n } from '@/lib/i18n';
import { languageForPath } from '@/lib/language-preference';
import { dropServerData, holdServerView, revealApp } from '@/lib/server-data';
import { startRealtime } from '@/lib/realtime';
import { loadUserInfo } from '@/lib/user';
import { loadWebConfig } from '@/lib/web-config';

window.prerenderReady = false;

// The URL's language, else the one this visitor picked before (a redirect to its prefix follows).
const language = languageForPath(window.location.pathname);
store.set(languageAtom, language);
document.documentElement.lang = language;

captureLandingParameters(window.location.search);
installGlobalErrorReporting();
void initI18n(language);
void loadUserInfo();
// The socket follows the user: it opens once user info says someone is signed in.
startRealtime();
void loadWebConfig();

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
// The server's page stays in front until the app's first screen shows the same (no splash).
holdServerView(container);
const router = createAppRouter();
// The server's data is for the page it rendered: gone once the app navigates elsewhere.
const landedOn = window.location.pathname;
router.subscribe((state) => {
  if (state.location.pathname === landedOn) return;
  dropServerData();
  revealApp();
});
createRoot(container).render(
  <StrictMode>
    <App router={router} />
  </StrictMode>,
);
