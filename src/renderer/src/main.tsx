import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

// Placeholder until the desktop screens land (Consulta, Saldo, Historial, Claves, Usuarios).
function App() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 32 }}>
      <h1>Titular</h1>
      <p>La API local está en marcha. Las pantallas de consulta, saldo, historial y claves llegan pronto.</p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
