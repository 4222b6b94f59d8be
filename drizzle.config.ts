import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/main/core/db/schema.ts',
  out: './drizzle',
});
