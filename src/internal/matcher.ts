/**
 * Compiled request matchers (filled in by the core registry work).
 */
export interface CompiledMatcher {
  /** A readable form of the matcher, e.g. `GET https://api.example.com/items/:id`. */
  readonly source: string
}
