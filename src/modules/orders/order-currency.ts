import { currencyCode } from '../../platform/core/currencies.js';
import { defineOrgSettings, setting } from '../../platform/orgs/org-settings.js';

/** The currency of orders created without one (`./bin/gateway settings set --org <slug> orders.currency=EUR`). */
export const orderSettings = defineOrgSettings({
  'orders.currency': setting(currencyCode('orders.currency'), 'USD', 'ISO 4217 code of orders created without a currency (USD, EUR, JPY, ...)'),
});
