/**
 * How long a test may take for work whose time is the machine's, not an event's: a TypeScript
 * program checked, a build, `npm pack` and `npm install`, the CLI started once per page of help.
 * Far above what any of it takes on a busy 2-core machine (the slowest seen, the README examples'
 * typecheck, took a minute at a load of 8 before it checked less), so a test fails on time only
 * when something hangs; how fast the suite runs is measured by its duration, not by its tests.
 */
export const HEAVY_WORK = 600_000
