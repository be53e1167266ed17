import type { Gateway } from '../gateway.js';
import { checkDatabaseFolder } from './database-folder.js';

export interface GatewayUse {
  /** Apply pending migrations first (every command but `migrate` itself, which reports them). */
  migrate?: boolean;
  /** May create a new SQLite database in a folder that does not exist yet (`migrate`, `serve --create`). */
  create?: boolean;
}

export type WithGateway = <T>(body: (gw: Gateway) => Promise<T>, use?: GatewayUse) => Promise<T>;

/** Opens the gateway for one command and always closes it; loaded on use, so `--help` never pays for the modules. */
export const withGateway: WithGateway = async (body, use = {}) => {
  // Configuration first: a bad setting is reported before the modules are loaded.
  const { loadConfig } = await import('../config.js');
  const config = loadConfig();
  checkDatabaseFolder(config.DATABASE_URL, use.create ?? false);
  const { createGateway } = await import('../gateway.js');
  const gw = await createGateway(config, use.migrate === undefined ? {} : { migrate: use.migrate });
  try {
    return await body(gw);
  } finally {
    await gw.close();
  }
};
