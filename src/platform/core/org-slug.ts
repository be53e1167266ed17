import { z } from 'zod';

/** An organisation's slug: lowercase letters, digits and dashes, 1-63 characters, starting with a letter or digit. */
export const ORG_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const ORG_SLUG_RULE = 'lowercase letters, digits and dashes, 1-63 characters, starting with a letter or digit';

/** The slug as an input field names it (`org`, `slug`): the pattern lands in OpenAPI, the message names the field. */
export const orgSlug = (what: string) => z.string().regex(ORG_SLUG, { error: `${what} must be an organisation slug: ${ORG_SLUG_RULE}` });
