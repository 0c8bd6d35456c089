/**
 * What `simnet explore` does to an app, and how it draws it: the actions (typed text, a line
 * submitted, a key, a resize), the text they type (a small grammar of words and the fixture's
 * prompts), and a case — actions, model scripts from `llmScript` and chaos from `chaos` — as one
 * fast-check arbitrary, so fast-check shrinks all three together: fewer actions, shorter text,
 * fewer scripts, less chaos.
 */
import fc from "fast-check"
import type { ChaosOptions } from "../registry/chaos.ts"
import type { LlmScript } from "../schemas/llmScript.ts"
import { chaos as chaosArbitrary, llmScript } from "../testing/arbitraries.ts"

/** One thing a person does at a terminal. `submit` types a line and presses Enter. */
export type ExploreAction =
  | { readonly type: "type"; readonly text: string }
  | { readonly type: "submit"; readonly text: string }
  | { readonly type: "press"; readonly key: string }
  | { readonly type: "resize"; readonly cols: number; readonly rows: number }

/** One generated run: its actions, the model scripts queued first, and its chaos (none: undefined). */
export interface ExploreCase {
  readonly actions: ReadonlyArray<ExploreAction>
  readonly scripts: ReadonlyArray<LlmScript>
  readonly chaos: ChaosOptions | undefined
}

/** The keys exploration presses: moving, editing and leaving a field; not the ones that quit. */
export const EXPLORE_KEYS: ReadonlyArray<string> = [
  "enter",
  "tab",
  "shift+tab",
  "escape",
  "up",
  "down",
  "left",
  "right",
  "backspace",
  "home",
  "end"
]

/** The words generated text is made of: plain, punctuated, quoted, non-ASCII, a slash command. */
const WORDS = [
  "hello",
  "list",
  "the",
  "files",
  "read",
  "README.md",
  "and",
  "fix",
  "it",
  "why",
  "?",
  "/help",
  "ok",
  "é",
  "日本",
  "🙂",
  '"quoted"',
  "a-b_c",
  "42"
]

/** What an action looks like in a report: `submit "hello"`, `press enter`, `resize 80x24`. */
export const actionLabel = (action: ExploreAction): string => {
  switch (action.type) {
    case "type":
    case "submit":
      return `${action.type} ${JSON.stringify(action.text)}`
    case "press":
      return `press ${action.key}`
    case "resize":
      return `resize ${action.cols}x${action.rows}`
  }
}

/** Options of the case arbitrary. */
export interface CaseArbitraryOptions {
  /** At most this many actions per run (at least 1). */
  readonly actions: number
  /** At least this many (default 1). */
  readonly minActions?: number | undefined
  /** Texts to type among the generated ones (the fixture's prompts). */
  readonly prompts: ReadonlyArray<string>
  /** Queue generated model scripts before the fixture's answers (default true). */
  readonly scripts?: boolean | undefined
  /** The highest chaos rate drawn; 0 for none (default 0). */
  readonly chaosRate?: number | undefined
}

/**
 * Text to type: a few words of the grammar, or one of `prompts` (twice as often as generated text
 * when there are any). Each shrinks toward fewer words.
 */
const textOf = (prompts: ReadonlyArray<string>): fc.Arbitrary<string> => {
  const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((list) => list.join(" "))
  return prompts.length === 0
    ? words
    : fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...prompts) }, { weight: 1, arbitrary: words })
}

/** One action: mostly lines submitted, then typed text and keys, sometimes a resize. */
export const actionArbitrary = (prompts: ReadonlyArray<string>): fc.Arbitrary<ExploreAction> => {
  const text = textOf(prompts)
  return fc.oneof(
    { weight: 4, arbitrary: text.map((t): ExploreAction => ({ type: "submit", text: t })) },
    { weight: 2, arbitrary: text.map((t): ExploreAction => ({ type: "type", text: t })) },
    { weight: 2, arbitrary: fc.constantFrom(...EXPLORE_KEYS).map((key): ExploreAction => ({ type: "press", key })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ cols: fc.integer({ min: 40, max: 160 }), rows: fc.integer({ min: 12, max: 50 }) })
        .map(({ cols, rows }): ExploreAction => ({ type: "resize", cols, rows }))
    }
  )
}

/**
 * A run's case. Chaos never draws `timeout` (a request never answered would hold every later
 * action until its wait ran out) nor latency (real waiting, for nothing exploration looks at).
 */
export const caseArbitrary = (options: CaseArbitraryOptions): fc.Arbitrary<ExploreCase> => {
  const rate = options.chaosRate ?? 0
  const chaos: fc.Arbitrary<ChaosOptions | undefined> =
    rate <= 0
      ? fc.constant(undefined)
      : fc.option(
          chaosArbitrary({ maxRate: rate }).map((drawn): ChaosOptions => {
            const faults = (drawn.faults ?? []).filter((fault) => fault !== "timeout")
            return { rate: drawn.rate, faults: faults.length === 0 ? ["serverError"] : faults }
          }),
          { nil: undefined }
        )
  return fc.record({
    actions: fc.array(actionArbitrary(options.prompts), {
      minLength: Math.max(1, Math.min(options.minActions ?? 1, options.actions)),
      maxLength: Math.max(1, options.actions)
    }),
    // Ordinary answers only: a run's screens (its states) are then the app's own, and what explore
    // checks of them (an answer shown) can be read; hostile answers are `property`'s business.
    scripts: options.scripts === false ? fc.constant([]) : fc.array(llmScript({ hostile: 0 }), { maxLength: 2 }),
    chaos
  })
}
