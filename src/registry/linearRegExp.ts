/**
 * Regular expressions that arrive as data (a fixture's or the control endpoint's `match.regex`)
 * run on RE2 (the `re2js` port), whose matching time is linear in the input: a pattern such as
 * `(a+)+$` cannot block the event loop. RE2 has no lookaround and no backreferences; a pattern
 * that uses them is refused when it is compiled. `RegExp`s written in code stay native: they are
 * the author's own.
 */
import { createRequire } from "node:module"
import type { RE2JS } from "re2js"
import { bounded } from "./redact.ts"

let engine: typeof RE2JS | undefined

/** RE2, loaded the first time a pattern from data is compiled (not with `import("simnet")`). */
const re2 = (): typeof RE2JS => (engine ??= (createRequire(import.meta.url)("re2js") as typeof import("re2js")).RE2JS)

/**
 * A pattern compiled by RE2, tested like a `RegExp` (`test` finds a match anywhere in the input).
 */
export class LinearRegExp {
  readonly source: string
  readonly #compiled: RE2JS

  private constructor(source: string, compiled: RE2JS) {
    this.source = source
    this.#compiled = compiled
  }

  /**
   * Compiles `source`, or returns the compiler's message when RE2 refuses it (bad syntax,
   * lookaround, backreferences).
   */
  static compile(source: string): LinearRegExp | string {
    try {
      return new LinearRegExp(source, re2().compile(source))
    } catch (error) {
      return error instanceof Error ? error.message : String(error)
    }
  }

  /** How a refusal of `compile` reads where a matcher's pattern is named (the compiler's message, bounded). */
  static refusal(detail: string): string {
    return `invalid regular expression (RE2 syntax: no lookaround or backreferences): ${bounded(detail)}`
  }

  /** Whether the pattern matches somewhere in `input`. */
  test(input: string): boolean {
    return this.#compiled.matcher(input).find()
  }

  /** The pattern as `/source/`, as a `RegExp` prints. */
  toString(): string {
    return `/${this.source}/`
  }
}

/**
 * `LinearRegExp` as Ajv's regular-expression engine (its `code.regExp` option), so that a JSON
 * Schema's `pattern` and `patternProperties` run on RE2 when Ajv validates data with them. A
 * pattern RE2 cannot compile fails the schema's compilation, as a malformed one does.
 */
export const linearAjvEngine: ((pattern: string) => { test: (input: string) => boolean }) & { readonly code: string } =
  Object.assign(
    (pattern: string) => {
      const compiled = LinearRegExp.compile(pattern)
      if (typeof compiled === "string") {
        throw new Error(
          `pattern ${JSON.stringify(pattern.slice(0, 200))} does not compile on the linear-time engine (RE2): ${compiled}`
        )
      }
      return compiled
    },
    { code: "simnet/LinearRegExp" }
  )
