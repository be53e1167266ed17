import { z } from 'zod';
import { type Actor, SYSTEM_ACTOR } from '../core/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Clock } from '../core/clock.js';
import type { BeforeCommit, Db, Executor, Tx } from '../db/schema.js';
import { AppError, invalidInput, notFound } from '../core/errors.js';
import { decodeCursor, page } from '../core/pagination.js';
import { newId } from '../core/ids.js';
import type { OrgSettings, OrgSettingsGroup, StoredSettings } from './org-settings.js';
import * as repo from './orgs.repository.js';
import { ORG_SLUG, ORG_SLUG_RULE } from '../core/org-slug.js';


interface OrgView {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

/** Runs in the settings transaction, so data derived from settings never disagrees with them. */
type SettingsListener<T extends OrgSettings> = (tx: Tx, orgId: string, values: T) => Promise<void>;

/** Operator-side org management (CLI); not reachable through the org-scoped API. */
export class OrgsService {
  private readonly listeners: { names: string[]; notify: (tx: Tx, orgId: string, stored: StoredSettings) => Promise<void> }[] = [];
  private readonly known: string[];

  /** `groups`: the settings every module declares; nothing else can be set. */
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly groups: readonly OrgSettingsGroup[],
  ) {
    this.known = groups.flatMap((g) => g.settings.map((s) => s.name));
    const twice = this.known.find((name, i) => this.known.indexOf(name) !== i);
    if (twice !== undefined) throw new Error(`setting ${twice} is declared twice`);
  }

  /** Runs `listener` with the group's new values whenever a change sets one of its settings. */
  onSettingsChanged<T extends OrgSettings>(group: OrgSettingsGroup<T>, listener: SettingsListener<T>): void {
    this.declared(group);
    this.listeners.push({ names: group.settings.map((s) => s.name), notify: (tx, orgId, stored) => listener(tx, orgId, group.read(stored)) });
  }

  async create(slug: string, name?: string, actor: Actor = SYSTEM_ACTOR, beforeCommit?: BeforeCommit<OrgView>): Promise<OrgView> {
    if (!ORG_SLUG.test(slug)) throw invalidInput(`org slug must be ${ORG_SLUG_RULE}`, undefined, 'slug');
    if (await repo.findOrgBySlug(this.db, slug)) throw new AppError('already_exists', `org ${slug} already exists`, undefined, undefined, 'slug');
    const row = { id: newId('org', this.clock.now()), slug, name: name ?? slug, created_at: this.clock.now().toISOString() };
    await this.db.transaction().execute(async (tx) => {
      await repo.insertOrg(tx, row);
      await recordAudit(tx, this.clock, actor, { action: 'org.created', target: row.id, orgId: row.id });
      await beforeCommit?.(tx, row);
    });
    return row;
  }

  list(): Promise<OrgView[]> {
    return repo.listOrgs(this.db);
  }

  /** One page of orgs by slug, for the operator API. */
  async page(query: { limit: number; cursor?: string | undefined }): Promise<{ orgs: OrgView[]; next_cursor: string | null }> {
    const after = decodeCursor(query.cursor, z.object({ slug: z.string() }));
    const rows = await repo.listOrgs(this.db, { ...(after ? { afterSlug: after.slug } : {}), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ slug: row.slug }));
    return { orgs: items, next_cursor };
  }

  /** The id of the org a list's `org` filter names (404 for none), or undefined when there is no filter. */
  idFilter(slug: string | undefined): Promise<string | undefined> {
    return repo.orgIdFilter(this.db, slug);
  }

  async bySlug(slug: string): Promise<OrgView> {
    const org = await repo.findOrgBySlug(this.db, slug);
    if (!org) throw notFound(`org ${slug}`);
    return org;
  }

  /** Every declared setting of the org. */
  async settings(orgId: string): Promise<OrgSettings> {
    return this.resolve(await repo.readSettings(this.db, orgId));
  }

  /** One group's values. Pass the caller's transaction when inside one: SQLite has a single connection, and the pool would wait on it. */
  async settingsOf<T extends OrgSettings>(group: OrgSettingsGroup<T>, orgId: string, db: Executor = this.db): Promise<T> {
    this.declared(group);
    return group.read(await repo.readSettings(db, orgId));
  }

  /**
   * A per-org revision of something a module caches across transactions (webhooks: the org's enabled endpoints). Kept
   * beside the settings (no operator sets it: `revision:` names are not settings) and read with them, so a change whose
   * transaction read its org's settings learns it without a statement of its own.
   */
  async revisionOf(tx: Tx, orgId: string, name: string): Promise<string> {
    return (await repo.readSettings(tx, orgId))[`revision:${name}`] ?? '';
  }

  /** A new value for the revision, in the transaction of the change it stands for; unique, so a rolled-back one never comes back. */
  async bumpRevision(tx: Tx, orgId: string, name: string): Promise<void> {
    const now = this.clock.now();
    await repo.upsertSetting(tx, orgId, `revision:${name}`, newId('rev', now), now.toISOString());
  }

  async setSettings(slug: string, assignments: string[]): Promise<OrgSettings> {
    const org = await this.bySlug(slug);
    const current = await repo.readSettings(this.db, org.id);
    const changes = this.parseAssignments(assignments);
    const merged = { ...current, ...changes };
    for (const group of this.groups) {
      const problem = group.problem(merged);
      if (problem !== undefined) throw invalidInput(problem);
    }
    const at = this.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      for (const [key, value] of Object.entries(changes)) await repo.upsertSetting(tx, org.id, key, value, at);
      for (const l of this.listeners) if (l.names.some((name) => name in changes)) await l.notify(tx, org.id, merged);
    });
    return this.resolve(merged);
  }

  private parseAssignments(assignments: string[]): Record<string, string> {
    const changes: Record<string, string> = {};
    for (const a of assignments) {
      const eq = a.indexOf('=');
      if (eq <= 0) throw invalidInput(`expected key=value, got "${a}"`);
      const key = a.slice(0, eq).trim();
      if (!this.known.includes(key)) throw invalidInput(`unknown setting: ${key} (known: ${this.known.join(', ')})`);
      changes[key] = a.slice(eq + 1).trim();
    }
    return changes;
  }

  private resolve(stored: StoredSettings): OrgSettings {
    return Object.fromEntries(this.groups.flatMap((g) => Object.entries(g.read(stored))));
  }

  private declared(group: OrgSettingsGroup): void {
    if (!this.groups.includes(group)) throw new Error(`settings ${group.settings.map((s) => s.name).join(', ')} are not declared by any module`);
  }
}
