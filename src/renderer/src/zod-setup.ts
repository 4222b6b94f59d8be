// Must be the first import of main.tsx: zod probes `new Function` (for faster object parsing) when a
// schema is built, and the CSP forbids eval, so the blocked probe would log a violation. Turning the
// JIT off before any schema module is evaluated skips the probe.
import { config } from 'zod';

config({ jitless: true });
