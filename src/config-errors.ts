/** Bad configuration: start stops with this one line naming the setting. Apart from config.ts so the CLI can catch it without loading zod. */
export class ConfigError extends Error {}

/** A configured dependency (database, Redis, port) that cannot be used at start: one clear line, like bad config. */
export class StartupError extends Error {}
