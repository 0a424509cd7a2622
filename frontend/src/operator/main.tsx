/** The operator console's entry (operator.html): its own bundle, never loaded by the user app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OperatorApp } from '@/operator/app';
import '@/operator/operator.css';

createRoot(document.getElementById('operator-root')!).render(
  <StrictMode>
    <OperatorApp />
  </StrictMode>,
);
