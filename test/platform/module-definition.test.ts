import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { MODULES } from '../../src/modules/index.js';
import { ordersModule } from '../../src/modules/orders/index.js';
import { productsModule } from '../../src/modules/products/index.js';
import { stockSettings } from '../../src/modules/products/stock-status.js';
import { buildServices, type ModuleDefinition } from '../../src/platform/module-definition.js';
import { defineOrgSettings, setting } from '../../src/platform/orgs/org-settings.js';
import { OrgsService } from '../../src/platform/orgs/orgs.service.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';

const widgetSettings = defineOrgSettings(
  {
    'widgets.max': setting(z.coerce.number().int().min(1), 10, 'most widgets an org may have'),
    'widgets.warn_at': setting(z.coerce.number().int(), 8, 'widget count that warns; at most widgets.max'),
  },
  (s) => (s['widgets.warn_at'] > s['widgets.max'] ? 'widgets.warn_at must not be above widgets.max' : undefined),
);

/** A throwaway module that declares settings and hooks a listener on them from its services wiring. */
function widgetsModule(calls: { orgId: string; max: number }[]): ModuleDefinition {
  return {
    name: 'widgets',
    tag: { name: 'widgets', description: 'test module' },
    operations: () => [],
    settings: widgetSettings,
    services: ({ services: { orgs } }) => {
      orgs.onSettingsChanged(widgetSettings, (_tx, orgId, values) => {
        calls.push({ orgId, max: values['widgets.max'] });
        return Promise.resolve();
      });
      return {};
    },
  };
}

describe.each(dialects)('modules declare settings and services (%s)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("validates every module's settings and tells each module of its own changes only", async () => {
    const calls: { orgId: string; max: number }[] = [];
    h = await startHarness(dialect, { modules: [...MODULES, widgetsModule(calls)] });
    const orgs = h.gateway.services.orgs;
    const org = await h.org('acme');
    expect(await orgs.settings(org.id)).toEqual({ 'stock.low_threshold': 8, 'stock.backorder_threshold': 0, 'orders.currency': 'USD', 'widgets.max': 10, 'widgets.warn_at': 8 });

    expect(await orgs.setSettings('acme', ['widgets.max=20', 'widgets.warn_at=15'])).toMatchObject({ 'widgets.max': 20, 'widgets.warn_at': 15 });
    expect(calls).toEqual([{ orgId: org.id, max: 20 }]);
    expect(await orgs.settingsOf(widgetSettings, org.id)).toEqual({ 'widgets.max': 20, 'widgets.warn_at': 15 });

    await orgs.setSettings('acme', ['stock.low_threshold=12']);
    expect(calls).toHaveLength(1);

    await expect(orgs.setSettings('acme', ['widgets.max=12'])).rejects.toThrow('widgets.warn_at must not be above widgets.max');
    await expect(orgs.setSettings('acme', ['widgets.max=0'])).rejects.toThrow(/invalid setting widgets.max/);
    await expect(orgs.setSettings('acme', ['widgets.min=1'])).rejects.toThrow(
      'unknown setting: widgets.min (known: stock.low_threshold, stock.backorder_threshold, orders.currency, widgets.max, widgets.warn_at)',
    );
    expect(await orgs.settingsOf(widgetSettings, org.id)).toEqual({ 'widgets.max': 20, 'widgets.warn_at': 15 });
  });

  it("refuses a setting declared twice and a group no module declares", async () => {
    const harness = (h = await startHarness(dialect));
    expect(() => new OrgsService(harness.gateway.database.db, harness.clock, [stockSettings, stockSettings])).toThrow('setting stock.low_threshold is declared twice');
    const org = await harness.org('acme');
    await expect(harness.gateway.services.orgs.settingsOf(widgetSettings, org.id)).rejects.toThrow('settings widgets.max, widgets.warn_at are not declared by any module');
  });

  it('builds services in module order and names a module that needs one listed after it', async () => {
    h = await startHarness(dialect);
    const { database, clock, delivery, services } = h.gateway;
    const pieces = { config: h.gateway.config, db: database.db, dialect: database.dialect, clock, delivery, vault: h.gateway.vault, limiter: h.gateway.limiter, log: h.gateway.log, cpu: h.gateway.cpu, instances: h.gateway.instances, load: h.gateway.requests };
    const platform = { orgs: services.orgs, apiKeys: services.apiKeys, portalKeys: services.portalKeys, deliveries: services.deliveries, audit: services.audit };
    expect(() => buildServices([ordersModule, productsModule], pieces, platform)).toThrow(
      'module orders uses services.products, which no module listed before it provides',
    );
    expect(() => buildServices([productsModule, productsModule], pieces, platform)).toThrow('module products provides services.products again');
    expect(Object.keys(buildServices(MODULES, pieces, platform)).sort()).toEqual(
      ['apiKeys', 'audit', 'connect', 'connectTokens', 'connections', 'deliveries', 'edi', 'ediPartners', 'inventory', 'oauthConsent', 'objects', 'orders', 'orgs', 'poller', 'polling', 'portal', 'portalKeys', 'products', 'syncWorker', 'syncs', 'warranty', 'webhooks'],
    );
  });
});
