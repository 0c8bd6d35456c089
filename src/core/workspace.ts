/**
 * A workspace's files, as a fixture gives them and as a sealed run leaves them: the fixture's
 * `files` (`{ "PATH": "text" | { "base64": "…" } }`) checked — a path that is not relative and
 * inside the workspace (`../x`, `/etc/passwd`, a NUL) is refused naming it —, laid out in a
 * directory without following a symlink planted there, read back as `{ PATH: { size, sha256,
 * text? } }`, and compared: what was created, changed and deleted. Every walk is bounded (files,
 * depth, bytes read), and never follows a symbolic link.
 */
import { createHash } from "node:crypto"
import type * as Fs from "node:fs"
import { InvalidRouteSpec } from "../SimnetError.ts"

/** A file as a fixture gives it: its text, or its bytes in base64. */
export type FileContent = string | { readonly base64: string }

/** A file as a workspace shows it: its size, its SHA-256 (hex), its text when it is UTF-8 of at most `TEXT_LIMIT` bytes, or where a link points. */
export interface FileState {
  readonly size: number
  readonly sha256: string
  readonly text?: string
  readonly link?: string
}

/** What changed in a workspace between two of its states. */
export interface WorkspaceChanges {
  readonly created: ReadonlyArray<string>
  readonly changed: ReadonlyArray<string>
  readonly deleted: ReadonlyArray<string>
}

/** The most files a workspace is read or seeded with, the deepest it is walked, the largest text shown. */
const MAX_FILES = 10_000
const MAX_DEPTH = 64
const TEXT_LIMIT = 64 * 1024
/** The most bytes a walk hashes; past it a file shows its size and no hash. */
const HASH_LIMIT = 64 * 1024 * 1024

const fs = (): typeof Fs => process.getBuiltinModule("node:fs")

/** Why `file` cannot be a workspace path, or undefined when it can: relative, normalised, inside. */
export const pathProblem = (file: string): string | undefined => {
  if (file === "" || file.length > 4096) return "must be a path of 1 to 4096 characters"
  if (file.includes("\0")) return "must not contain NUL"
  if (file.startsWith("/") || /^[A-Za-z]:[\\/]/.test(file) || file.startsWith("\\")) return "must be relative to the workspace, not absolute"
  const parts = file.split(/[\\/]/)
  if (parts.some((part) => part === "..")) return "must stay inside the workspace (no ..)"
  if (parts.some((part) => part === "" || part === ".")) return "must be normalised (no empty or . segments)"
  return undefined
}

/** Why `files` cannot seed a workspace — too many, a path that escapes, base64 that is not — as the error naming the first, or undefined. */
export const filesRefusal = (files: Readonly<Record<string, FileContent>>, base = "files"): InvalidRouteSpec | undefined => {
  const entries = Object.entries(files)
  if (entries.length > MAX_FILES) return new InvalidRouteSpec({ path: base, message: `at most ${MAX_FILES} files, got ${entries.length}` })
  for (const [file, content] of entries) {
    const at = `${base}[${JSON.stringify(file.slice(0, 200))}]`
    const problem = pathProblem(file)
    if (problem !== undefined) return new InvalidRouteSpec({ path: at, message: `the path ${problem}` })
    if (typeof content === "string") continue
    if (typeof content !== "object" || content === null || typeof content.base64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(content.base64.replace(/\s+/g, ""))) {
      return new InvalidRouteSpec({ path: `${at}.base64`, message: "is not base64" })
    }
  }
  return undefined
}

/** The bytes of a fixture's file. */
export const contentBytes = (content: FileContent): Buffer =>
  typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content.base64, "base64")

/**
 * Writes `files` under `root`, making directories as needed; never through a symbolic link (a
 * link where a directory or the file should be is refused, naming it). Fails with an `Error`
 * naming the first path that cannot be written.
 */
export const layOut = (root: string, files: Readonly<Record<string, FileContent>>): void => {
  const f = fs()
  for (const [file, content] of Object.entries(files)) {
    const problem = pathProblem(file)
    if (problem !== undefined) throw new Error(`files[${JSON.stringify(file)}]: ${problem}`)
    const parts = file.split("/")
    let at = root
    for (const [index, part] of parts.entries()) {
      at = `${at}/${part}`
      const last = index === parts.length - 1
      let stat: Fs.Stats | undefined
      try {
        stat = f.lstatSync(at)
      } catch {
        stat = undefined
      }
      if (stat?.isSymbolicLink() === true) throw new Error(`files[${JSON.stringify(file)}]: ${JSON.stringify(parts.slice(0, index + 1).join("/"))} is a symbolic link in the workspace: refused`)
      if (!last && stat === undefined) f.mkdirSync(at)
      else if (!last && !stat!.isDirectory()) throw new Error(`files[${JSON.stringify(file)}]: ${JSON.stringify(parts.slice(0, index + 1).join("/"))} is a file, not a directory`)
    }
    // O_NOFOLLOW: a link made between the check and the write is not followed either.
    const fd = f.openSync(at, f.constants.O_WRONLY | f.constants.O_CREAT | f.constants.O_TRUNC | f.constants.O_NOFOLLOW, 0o644)
    try {
      f.writeSync(fd, contentBytes(content))
    } finally {
      f.closeSync(fd)
    }
  }
}

/**
 * `bytes` as text when they are UTF-8 without a NUL (text that holds one is binary that happens
 * to decode), else undefined.
 */
export const textOf = (bytes: Uint8Array): string | undefined => {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
    return text.includes("\0") ? undefined : text
  } catch {
    return undefined
  }
}

/** The state of one file's bytes: its text shown when it is text of at most `TEXT_LIMIT` bytes. */
export const stateOf = (bytes: Buffer): FileState => {
  const text = bytes.length <= TEXT_LIMIT ? textOf(bytes) : undefined
  return { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), ...(text === undefined ? {} : { text }) }
}

/**
 * Every file under `root` (directories walked, links not followed but shown as links), sorted by
 * path, at most `MAX_FILES`; `truncated` when there were more.
 */
export const readWorkspace = (root: string): { readonly files: Record<string, FileState>; readonly truncated: boolean } => {
  const f = fs()
  const files: Record<string, FileState> = {}
  let count = 0
  let hashed = 0
  let truncated = false
  const walk = (dir: string, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) return
    let entries: Array<Fs.Dirent>
    try {
      entries = f.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    } catch {
      return
    }
    for (const entry of entries) {
      if (count >= MAX_FILES) {
        truncated = true
        return
      }
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
      const full = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(full, path, depth + 1)
      else if (entry.isSymbolicLink()) {
        count++
        const target = f.readlinkSync(full)
        files[path] = { ...stateOf(Buffer.from(target)), link: target }
      } else if (entry.isFile()) {
        count++
        const size = f.statSync(full).size
        if (hashed + size > HASH_LIMIT) {
          files[path] = { size, sha256: "" }
          continue
        }
        hashed += size
        files[path] = stateOf(f.readFileSync(full))
      }
    }
  }
  walk(root, "", 0)
  return { files, truncated }
}

/** What changed from `before` to `after`, each list sorted. */
export const changesOf = (before: Readonly<Record<string, FileState>>, after: Readonly<Record<string, FileState>>): WorkspaceChanges => ({
  created: Object.keys(after).filter((path) => before[path] === undefined).sort(),
  changed: Object.keys(after).filter((path) => before[path] !== undefined && before[path]!.sha256 !== after[path]!.sha256).sort(),
  deleted: Object.keys(before).filter((path) => after[path] === undefined).sort()
})

/** The states of a fixture's files, as the workspace will show them once laid out. */
export const statesOf = (files: Readonly<Record<string, FileContent>>): Record<string, FileState> =>
  Object.fromEntries(Object.entries(files).map(([path, content]) => [path, stateOf(contentBytes(content))]))

/**
 * The files under `root` as a fixture's `files` (text when UTF-8 without NUL, else base64), to
 * carry in a snapshot; links and files past the walk's limits are left out.
 */
export const workspaceFiles = (root: string): Record<string, FileContent> => {
  const f = fs()
  const out: Record<string, FileContent> = {}
  for (const [path, state] of Object.entries(readWorkspace(root).files)) {
    if (state.link !== undefined || state.sha256 === "") continue
    const bytes = f.readFileSync(`${root}/${path}`)
    out[path] = state.text !== undefined ? state.text : { base64: bytes.toString("base64") }
  }
  return out
}
