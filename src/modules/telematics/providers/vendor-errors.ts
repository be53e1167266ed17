import { AppError } from '../../../platform/core/errors.js';
import { retryAfterOf, VendorRejectedError, VendorUnavailableError } from './adapter.js';

/**
 * A vendor's answer as what the caller is told: refused credentials are the fleet's to fix (422, the message says
 * how), an outage or a timeout is ours to report (502/504, with the vendor's Retry-After when it gave one).
 */
export function vendorError(err: unknown, providerId: string): unknown {
  if (err instanceof VendorRejectedError) return new AppError('credentials_rejected', err.message);
  if (err instanceof VendorUnavailableError) {
    const wait = retryAfterOf(err);
    const headers = wait === undefined ? undefined : { 'retry-after': String(wait) };
    return err.kind === 'timeout'
      ? new AppError('upstream_timeout', `${providerId} did not answer in time; try again in a moment`, undefined, headers)
      : new AppError('upstream_failure', `${providerId} could not be reached or failed; try again later`, undefined, headers);
  }
  return err;
}
