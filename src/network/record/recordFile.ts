/**
 * The file side of record mode: what a recording target holds (`readTarget`), whether a recording
 * can be merged into it (`recordingTargetProblem`), and the merge written atomically
 * (`writeMerged`). `record.ts` writes through them as the recording grows.
 */
import { existsSync, readFileSync } from "node:fs"
import { writeFileAtomic } from "../../fileSystem/files.ts"
import { depthExceeds, MAX_JSON_DEPTH } from "../../registry/util.ts"
import type { Recording } from "./recorded.ts"

/** A fixture file's content as record mode merges into it. */
export type Target = { readonly routes?: Array<Record<string, unknown>>; readonly llm?: unknown } & Record<
  string,
  unknown
>

/**
 * What `file` holds, to merge a recording into (`{}` when there is no file), or why it cannot be
 * merged into: it is not JSON, not an object, or has `routes` or `llm.rules` that are not arrays.
 */
export const readTarget = (
  file: string
): { readonly existing: Target; readonly text: string | undefined } | { readonly problem: string } => {
  const text = contentOf(file)
  if (text === undefined) return { existing: {}, text }
  let existing: unknown
  try {
    existing = JSON.parse(text)
  } catch (cause) {
    return {
      problem: `${file} exists and cannot be read as JSON (${cause instanceof Error ? cause.message : String(cause)})`
    }
  }
  if (typeof existing !== "object" || existing === null || Array.isArray(existing))
    return { problem: `${file} exists and is not a fixture (a JSON object)` }
  const fixture = existing as { routes?: unknown; llm?: unknown }
  if (fixture.routes !== undefined && !Array.isArray(fixture.routes))
    return { problem: `${file}: routes is not an array` }
  const llm = fixture.llm as { rules?: unknown } | undefined
  if (
    llm !== undefined &&
    !Array.isArray(llm) &&
    (typeof llm !== "object" || llm === null || (llm.rules !== undefined && !Array.isArray(llm.rules)))
  ) {
    return { problem: `${file}: llm is neither a queue (an array) nor { queue, rules } with rules an array` }
  }
  if (depthExceeds(existing, MAX_JSON_DEPTH)) return { problem: `${file} nests deeper than ${MAX_JSON_DEPTH}` }
  return { existing: existing as Target, text }
}

/** What `file` holds as text, or undefined when there is no such file. */
export const contentOf = (file: string): string | undefined =>
  existsSync(file) ? readFileSync(file, "utf8") : undefined

/**
 * Why a recording cannot be merged into `file` (checked before anything is recorded, so that a
 * session is not recorded for nothing), or undefined when it can be (or does not exist).
 */
export const recordingTargetProblem = (file: string): string | undefined => {
  const target = readTarget(file)
  return "problem" in target ? target.problem : undefined
}

/** `base`, or `base-2`, `base-3`, … : the first that `taken` does not have (added to it). */
const uniqueId = (base: string, taken: Set<unknown>): string => {
  let id = base
  for (let k = 2; taken.has(id); k++) id = `${base}-${k}`
  taken.add(id)
  return id
}

/**
 * Merges `recording` into `existing` and writes the result to `file` whole or not at all (and
 * returns the text written): a route or rule the file already has (same match and answer) is not
 * added again, nor a family twice.
 */
export const writeMerged = (file: string, existing: Target, recording: Recording, seed?: number): string => {
  const before = existing.routes ?? []
  const seen = new Set(
    before.map((route) => JSON.stringify("family" in route ? route : [route["match"], route["respond"]]))
  )
  const taken = new Set(before.map((route) => route["id"]))
  const added: Array<Record<string, unknown>> = []
  for (const route of recording.routes) {
    const key = JSON.stringify("family" in route ? route : [route["match"], route["respond"]])
    if (seen.has(key)) continue
    // A family once; a route as often as the recording has it (a sequence may answer alike twice).
    if ("family" in route) seen.add(key)
    added.push("family" in route ? route : { ...route, id: uniqueId(String(route["id"]), taken) })
  }
  // Rules: those the file has, then the new ones it has not (by match and behaviour).
  const given = existing.llm
  const queue = Array.isArray(given) ? given : (given as { queue?: Array<unknown> } | undefined)?.queue
  const rulesBefore = Array.isArray(given)
    ? []
    : ((given as { rules?: Array<Record<string, unknown>> } | undefined)?.rules ?? [])
  const ruleSeen = new Set(rulesBefore.map((rule) => JSON.stringify([rule["match"], rule["behaviour"]])))
  const ruleIds = new Set(rulesBefore.map((rule) => rule["id"]))
  const rulesAdded: Array<Record<string, unknown>> = []
  for (const rule of recording.llm?.rules ?? []) {
    if (ruleSeen.has(JSON.stringify([rule["match"], rule["behaviour"]]))) continue
    rulesAdded.push({ ...rule, id: uniqueId(String(rule["id"]), ruleIds) })
  }
  const llm =
    rulesBefore.length + rulesAdded.length === 0
      ? given
      : { ...(queue === undefined ? {} : { queue }), rules: [...rulesBefore, ...rulesAdded] }
  const merged = {
    ...(seed === undefined || "seed" in existing ? {} : { seed }),
    ...existing,
    routes: [...before, ...added],
    ...(llm === undefined ? {} : { llm })
  }
  const text = `${JSON.stringify(merged, null, 2)}\n`
  writeFileAtomic(file, text)
  return text
}
