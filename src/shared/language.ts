// The two languages Titular speaks, Spanish first and English second, and the reader's time zone.
// The renderer's catalogs and the desktop's CSV exports (which follow the screen's language and
// clock) both take them from here.
import { z } from 'zod';

export const languageSchema = z.enum(['es', 'en']);
export type Language = z.infer<typeof languageSchema>;

/** An IANA time zone this runtime knows (`America/Argentina/Buenos_Aires`). */
export const timeZoneSchema = z
  .string()
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'not a known time zone');
