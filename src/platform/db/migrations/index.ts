import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';

/** Every migration, in order. Add a module's migration here with the next number. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
};
