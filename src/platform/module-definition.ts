import type { Migration } from 'kysely';
import type { Logger } from 'pino';
import type { CpuPool } from './core/cpu-pool.js';
import type { Config } from '../config.js';
import type { DatabaseHandle, Dialect } from './db/database.js';
import type { PurgeTarget } from './db/retention.js';
import type { PageRoute } from './http/html-page.js';
import type { StaticFile } from './http/static-files.js';
import type { AuditService } from './audit/audit.service.js';
import type { ApiKeysService } from './auth/api-keys.service.js';
import { ScopeCatalog, type ScopePattern } from './auth/scopes.js';
import type { PortalKeysService } from './auth/portal-keys.service.js';
import type { Clock } from './core/clock.js';
import type { LoadSignal } from './core/requests-in-flight.js';
import type { BackgroundWorker } from './core/work-loop.js';
import type { Db } from './db/schema.js';
import type { OperationSource } from './operations/module.js';
import type { OrgSettingsGroup } from './orgs/org-settings.js';
import type { OrgsService } from './orgs/orgs.service.js';
import type { DeliveriesService } from './outbox/deliveries.service.js';
import type { DeliveryWorker } from './outbox/delivery-worker.js';
import type { InstanceLiveness } from './instances/instance-liveness.js';
import type { RateLimiter } from './ratelimit/rate-limiter.js';
import type { EncryptedColumn } from './secrets/columns.js';
import type { SecretVault } from './secrets/vault.js';

/**
 * The gateway's services by name: the platform's here; each module adds its own from its index.ts by declaration
 * merging (`declare module '../../platform/module-definition.js' { interface Services { products: ProductsService } }`).
 */
export interface Services {
  orgs: OrgsService;
  apiKeys: ApiKeysService;
  portalKeys: PortalKeysService;
  deliveries: DeliveriesService;
  audit: AuditService;
}

type PlatformServices = Pick<Services, 'orgs' | 'apiKeys' | 'portalKeys' | 'deliveries' | 'audit'>;

/** What a module builds its services from: platform pieces, and the services of the modules listed before it. */
interface ModuleContext {
  config: Config;
  db: Db;
  /** Which database: claims with leases differ (`FOR UPDATE SKIP LOCKED` on PostgreSQL). */
  dialect: Dialect;
  clock: Clock;
  /** Hub delivery right after commit. */
  delivery: DeliveryWorker;
  /** Encrypts credentials and tokens at rest; pass the record's id as AAD and declare the column in `encryptedColumns`. */
  vault: SecretVault;
  /** The gateway's sliding-window limiter (shared through Redis when configured): for budgets that span processes. */
  limiter: RateLimiter;
  /** The process's logger (stderr, at LOG_LEVEL), named for the module: stdout is CLI commands' output. */
  log: Logger;
  /** Worker threads for CPU-heavy pure work, so a large body never holds the request thread. */
  cpu: CpuPool;
  /** This process as an owner of leases that hold while it lives (heartbeats), and whether another owner still does. */
  instances: InstanceLiveness;
  /** Whether the process is answering requests now (the HTTP frame's count): for background work that yields to them. */
  load: LoadSignal;
  services: Services;
}

/**
 * A module as it declares itself (one folder; the app lists the modules in src/modules/index.ts): its operations
 * (REST, MCP and OpenAPI come from them), its migrations, its per-org settings and how its services are built. Its
 * table types live in its `<m>.tables.ts`, merged into the platform's `Database`.
 */
export interface ModuleDefinition extends OperationSource<Services> {
  name: string;
  /**
   * Its migrations by name, `NNNN_<module>[_<what>]` with NNNN above every migration that exists (the platform's and
   * every module's: all run in one sequence, in name order, and a deployed database refuses a name that sorts before
   * one it has run). Take `Kysely<unknown>`: a migration must not change with today's table types.
   */
  migrations?: Record<string, Migration>;
  /** The scopes its operations need that a key is granted by name, each with what it opens (`all` grants these). */
  scopes?: Readonly<Record<string, string>>;
  /** Scopes it grants by a pattern (objects:<key>:read), checked where it decides per record. */
  scopePatterns?: readonly ScopePattern[];
  /** The columns of its tables that hold vault ciphertexts: the ones `secrets rotate` re-encrypts. */
  encryptedColumns?: readonly EncryptedColumn[];
  /** Its background workers (the telematics poller): `serve` starts them, closing the gateway stops them. */
  workers?(services: Services): BackgroundWorker[];
  /** Pages a person's browser lands on (an OAuth redirect back): HTML, outside the operation list. */
  pages?(services: Services): PageRoute[];
  /** Files a browser loads as they are (the portal widget's script and demo page). */
  files?: readonly StaticFile[];
  /** What retention deletes of its tables once kept long enough (every `serve` runs it, and `retention purge`). */
  retention?(context: { config: Config; database: DatabaseHandle }): PurgeTarget[];
  /** Its per-org settings (`settings set/show`); OrgsService refuses any name no module declares. */
  settings?: OrgSettingsGroup;
  /** Builds its services and registers its hooks on other services' (it calls services, never another module's tables). */
  services?(context: ModuleContext): Partial<Services>;
}

/** Every scope the modules declare; a scope declared twice stops start-up. */
export function scopesOf(modules: readonly ModuleDefinition[]): ScopeCatalog {
  const described: Record<string, string> = {};
  for (const m of modules) {
    for (const [scope, description] of Object.entries(m.scopes ?? {})) {
      if (scope in described) throw new Error(`scope ${scope} is declared twice (again by module ${m.name})`);
      described[scope] = description;
    }
  }
  return new ScopeCatalog(described, modules.flatMap((m) => m.scopePatterns ?? []));
}

/**
 * Builds every module's services in list order. A module that reads a service no module before it built fails
 * here, at start, naming both, rather than with `undefined` at its first request.
 */
export function buildServices(modules: readonly ModuleDefinition[], pieces: Omit<ModuleContext, 'services'>, platform: PlatformServices): Services {
  const built: Partial<Services> = { ...platform };
  for (const m of modules) {
    const earlier = new Proxy(built, {
      get(target, name) {
        if (typeof name === 'string' && !(name in target)) throw new Error(`module ${m.name} uses services.${name}, which no module listed before it provides`);
        return Reflect.get(target, name) as unknown;
      },
    });
    // Every member it reads is checked by the proxy above.
    const own = m.services?.({ ...pieces, log: pieces.log.child({ name: m.name }), services: earlier as Services }) ?? {};
    for (const name of Object.keys(own)) if (name in built) throw new Error(`module ${m.name} provides services.${name} again`);
    Object.assign(built, own);
  }
  // Each module's declaration merging adds exactly the services its `services` returns.
  return built as Services;
}
