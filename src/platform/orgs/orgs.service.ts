import type { Clock } from '../clock.js';
import type { Db, Executor, Tx } from '../db/schema.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { newId } from '../ids.js';
import { type OrgSettings, resolveSettings, validateAssignments } from './org-settings.js';
import * as repo from './orgs.repository.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface OrgView {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

/** Runs in the settings transaction, so data derived from settings never disagrees with them. */
export type SettingsListener = (tx: Tx, orgId: string, settings: OrgSettings) => Promise<void>;

/** Operator-side org management (CLI); not reachable through the org-scoped API. */
export class OrgsService {
  private readonly listeners: SettingsListener[] = [];

  constructor(private readonly db: Db, private readonly clock: Clock) {}

  onSettingsChanged(listener: SettingsListener): void {
    this.listeners.push(listener);
  }

  async create(slug: string, name?: string): Promise<OrgView> {
    if (!SLUG.test(slug)) throw invalidInput('org slug must be lowercase letters, digits and dashes (1-63 chars)');
    if (await repo.findOrgBySlug(this.db, slug)) throw conflict(`org ${slug} already exists`);
    const row = { id: newId('org', this.clock.now()), slug, name: name ?? slug, created_at: this.clock.now().toISOString() };
    await repo.insertOrg(this.db, row);
    return row;
  }

  list(): Promise<OrgView[]> {
    return repo.listOrgs(this.db);
  }

  async bySlug(slug: string): Promise<OrgView> {
    const org = await repo.findOrgBySlug(this.db, slug);
    if (!org) throw notFound(`org ${slug}`);
    return org;
  }

  /** Pass the caller's transaction when inside one: SQLite has a single connection, and the pool would wait on it. */
  async settings(orgId: string, db: Executor = this.db): Promise<OrgSettings> {
    return resolveSettings(await repo.readSettings(db, orgId));
  }

  async setSettings(slug: string, assignments: string[]): Promise<OrgSettings> {
    const org = await this.bySlug(slug);
    const current = await repo.readSettings(this.db, org.id);
    const changes = validateAssignments(current, assignments);
    const at = this.clock.now().toISOString();
    const settings = resolveSettings({ ...current, ...changes });
    await this.db.transaction().execute(async (tx) => {
      for (const [key, value] of Object.entries(changes)) await repo.upsertSetting(tx, org.id, key, value, at);
      for (const listener of this.listeners) await listener(tx, org.id, settings);
    });
    return settings;
  }
}
