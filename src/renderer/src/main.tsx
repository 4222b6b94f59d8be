import './zod-setup';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nProvider } from './i18n';
import { ToastProvider } from './components/Toast';
import { App } from './App';
import { isIpcCallError } from './api/client';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // API errors (4xx answers) are final; only transport hiccups are worth one more try.
      retry: (failures, error) => failures < 1 && isIpcCallError(error) && (error.code === 'NETWORK' || error.status >= 500),
    },
    // A settled mutation keeps its input and answer in React Query's cache for five minutes by default:
    // a typed passphrase, a revealed or rotated key, an upstream key. None of it is kept once the screen
    // that asked for it is gone.
    mutations: { retry: false, gcTime: 0 },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <ToastProvider>
          <App />
        </ToastProvider>
      </I18nProvider>
    </QueryClientProvider>
  </StrictMode>,
);
