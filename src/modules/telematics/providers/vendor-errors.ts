import { AppError } from '../../../platform/core/errors.js';
import { retryAfterOf, VendorDocumentInvalidError, VendorRejectedError, VendorUnavailableError } from './adapter.js';

/**
 * A vendor's answer as what the caller is told, each cause its own code: refused credentials are the fleet's to fix
 * (422, the message says how); a vendor that cannot be reached (`vendor_unreachable`), answers an error status
 * (`vendor_error`, with the status) or a document we cannot read (`vendor_document_invalid`, with the path and the
 * parser's reason) is 502, a timeout 504, with the vendor's Retry-After when it gave one.
 */
export function vendorError(err: unknown, providerId: string): unknown {
  if (err instanceof VendorRejectedError) return new AppError('credentials_rejected', err.message);
  if (!(err instanceof VendorUnavailableError)) return err;
  const wait = retryAfterOf(err);
  const headers = wait === undefined ? undefined : { 'retry-after': String(wait) };
  if (err instanceof VendorDocumentInvalidError) {
    return new AppError('vendor_document_invalid', `${err.message}; the vendor must fix its answer, or the provider's settings do not match its feed`, { path: err.path, reason: err.reason });
  }
  if (err.kind === 'timeout') return new AppError('upstream_timeout', `${providerId} did not answer in time; try again in a moment`, undefined, headers);
  if (err.status !== undefined) {
    const later = err.status === 429 || err.status >= 500 ? '; try again later' : '';
    return new AppError('vendor_error', `${err.message}${later}`, { status: err.status, ...(wait === undefined ? {} : { retry_after_seconds: wait }) }, headers);
  }
  return new AppError('vendor_unreachable', `${err.message}; try again later`, undefined, headers);
}
