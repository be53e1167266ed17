import { accountAdapter, textAt } from '../account.adapter.js';

/** Fleet-telematics aggregators: each has its own account endpoint and answer shape. */
export const aggregatorAdapter = accountAdapter({
  vendor13: { path: '/v1/account', name: (b) => textAt(b, 'account', 'name') },
  vendor14: { path: '/api/me', name: (b) => textAt(b, 'companyName') },
  vendor15: { path: '/rest/whoami', name: (b) => textAt(b, 'customer', 'name') },
  vendor16: { path: '/api/v2/account', name: (b) => textAt(b, 'data', 'accountName') },
  vendor17: { path: '/account', name: (b) => textAt(b, 'name') },
});
