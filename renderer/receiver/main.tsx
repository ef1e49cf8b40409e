import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../console/styles.css';
import { App, takePairingToken } from './App';
import { registerServiceWorker } from './push';
import './receiver.css';

// The web receiver (issue "Web receiver app"): sign-in, User Key, the live inbox and settings,
// on the receiver API only. The console's stylesheet gives it the same look; receiver.css adds
// the phone layout.
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App pairingToken={takePairingToken()} />
  </StrictMode>,
);

// The service worker shows Web Push notifications and keeps the app openable offline.
void registerServiceWorker();
