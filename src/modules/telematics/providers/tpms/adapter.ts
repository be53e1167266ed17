import { accountAdapter, textAt } from '../account.adapter.js';

/** Tire-pressure monitoring platforms: verified through their account endpoint like the aggregators. */
export const tpmsAdapter = accountAdapter({
  vendor18_tyresense: { path: '/api/account', name: (b) => textAt(b, 'account_name') },
  vendor19_connect: { path: '/v1/me', name: (b) => textAt(b, 'fleet', 'name') },
});
