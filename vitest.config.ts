import { defineConfig } from 'vitest/config';

export const config = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

// vitest loads the config through its default export; the lint rule against default exports exempts this file.
export default config;
