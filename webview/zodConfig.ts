import { z } from 'zod';

// Imported first by main.ts, before any schema is built: zod's JIT would probe `new Function`,
// which the panel's CSP (no 'unsafe-eval') reports as a violation. Jitless parsing needs no eval.
z.config({ jitless: true });
