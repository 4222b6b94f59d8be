// The two languages Titular speaks: Spanish first, English second. The renderer's catalogs and the
// desktop's CSV exports (which follow the screen's language) both take them from here.
import { z } from 'zod';

export const languageSchema = z.enum(['es', 'en']);
export type Language = z.infer<typeof languageSchema>;
