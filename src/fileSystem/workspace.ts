/**
 * A workspace's files, as a fixture gives them and as a sealed run leaves them: the fixture's
 * `files` (`{ "PATH": "text" | { "base64": "…" } }`) checked — a path that is not relative and
 * inside the workspace (`../x`, `/etc/passwd`, a NUL) is refused naming it —, laid out in a
 * directory without following a symlink planted there, read back as `{ PATH: { size, sha256,
 * text? } }`, compared (what was created, changed and deleted), and made to hold a snapshot's
 * files only. Every walk is bounded (files, depth, bytes read), goes from directory handles and
 * never follows a symbolic link, however a program in the workspace changes it meanwhile.
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
  if (file.startsWith("/") || /^[A-Za-z]:[\\/]/.test(file) || file.startsWith("\\"))
    return "must be relative to the workspace, not absolute"
  const parts = file.split(/[\\/]/)
  if (parts.some((part) => part === "..")) return "must stay inside the workspace (no ..)"
  if (parts.some((part) => part === "" || part === ".")) return "must be normalised (no empty or . segments)"
  return undefined
}

/** Why `files` cannot seed a workspace — too many, a path that escapes, base64 that is not — as the error naming the first, or undefined. */
export const filesRefusal = (
  files: Readonly<Record<string, FileContent>>,
  base = "files"
): InvalidRouteSpec | undefined => {
  const entries = Object.entries(files)
  if (entries.length > MAX_FILES)
    return new InvalidRouteSpec({ path: base, message: `at most ${MAX_FILES} files, got ${entries.length}` })
  for (const [file, content] of entries) {
    const at = `${base}[${JSON.stringify(file.slice(0, 200))}]`
    const problem = pathProblem(file)
    if (problem !== undefined) return new InvalidRouteSpec({ path: at, message: `the path ${problem}` })
    if (typeof content === "string") continue
    if (
      typeof content !== "object" ||
      content === null ||
      typeof content.base64 !== "string" ||
      !/^[A-Za-z0-9+/]*={0,2}$/.test(content.base64.replace(/\s+/g, ""))
    ) {
      return new InvalidRouteSpec({ path: `${at}.base64`, message: "is not base64" })
    }
  }
  return undefined
}

/** The bytes of a fixture's file. */
export const contentBytes = (content: FileContent): Buffer =>
  typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content.base64, "base64")

/**
 * Every walk of a workspace goes from a directory handle, a component at a time, never by a path
 * a program in the workspace could change under it: each directory is opened with `O_NOFOLLOW`
 * and `O_DIRECTORY` through `/proc/self/fd/N/NAME` (Node has no `openat`; the magic link is the
 * directory already open, so a name swapped for a link after it was listed is refused when it is
 * opened, not followed), each file with `O_NOFOLLOW` and `O_NONBLOCK` (a FIFO planted where a
 * file goes does not block) and checked by `fstat` to be a regular file. Where there is no
 * `/proc` (not Linux: no sealed run either; `simnet explore` lays out a fixture's files there), a
 * directory's name is its path: each last component is still not followed.
 */
const HANDLES = process.platform === "linux"

/** The paths of the directories open, where there are no handles to go through. */
const opened = new Map<number, string>()

/** The name `name` in the open directory `dir`. */
const at = (dir: number, name: string): string => `${listing(dir)}/${name}`

/** What names the open directory `dir` itself (to list it). */
const listing = (dir: number): string => (HANDLES ? `/proc/self/fd/${dir}` : opened.get(dir)!)

/** The directory `path` (its last component not followed), open; throws as `open` does (`ENOTDIR` for a link or a file). */
const openDirectory = (path: string, follow = false): number => {
  const f = fs()
  const fd = f.openSync(path, f.constants.O_RDONLY | f.constants.O_DIRECTORY | (follow ? 0 : f.constants.O_NOFOLLOW))
  if (!HANDLES) opened.set(fd, path)
  return fd
}

/** The directory a walk starts from: `path` as `openDirectory` opens it, but for a handle simnet holds already (`/proc/self/fd/N`), which is followed. */
const openRoot = (path: string): number => openDirectory(path, /^\/proc\/self\/fd\/\d+$/.test(path))

/** Runs `use` with `fd` and closes it after, whatever happens. */
const closing = <A>(fd: number, use: (fd: number) => A): A => {
  try {
    return use(fd)
  } finally {
    opened.delete(fd)
    fs().closeSync(fd)
  }
}

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

/** What stands at `path` instead of what was wanted, for a refusal. */
const standing = (path: string): string => {
  try {
    const stat = fs().lstatSync(path)
    return stat.isSymbolicLink()
      ? "is a symbolic link in the workspace: refused"
      : stat.isDirectory()
        ? "is a directory, not a file"
        : "is a file, not a directory"
  } catch {
    return "changed while it was written: refused"
  }
}

/**
 * Writes `files` under `root`, making directories as needed; never through a symbolic link or
 * into anything but a regular file (a link, a FIFO or a device where a directory or the file
 * should be is refused, naming it), however the workspace changes meanwhile. Fails with an
 * `Error` naming the first path that cannot be written.
 */
export const layOut = (root: string, files: Readonly<Record<string, FileContent>>): void => {
  const f = fs()
  const { O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = f.constants
  closing(openRoot(root), (top) => {
    for (const [file, content] of Object.entries(files)) {
      const problem = pathProblem(file)
      if (problem !== undefined) throw new Error(`files[${JSON.stringify(file)}]: ${problem}`)
      const parts = file.split("/")
      const refuse = (index: number, path: string, why?: string): never => {
        throw new Error(
          `files[${JSON.stringify(file)}]: ${JSON.stringify(parts.slice(0, index + 1).join("/"))} ${why ?? standing(path)}`
        )
      }
      // The file's directory, a component at a time, each held open while the next is opened.
      const into = (dir: number, index: number): void => {
        if (index === parts.length - 1) {
          write(dir)
          return
        }
        const path = at(dir, parts[index]!)
        let next: number | undefined
        for (let attempt = 0; next === undefined; attempt++) {
          try {
            next = openDirectory(path)
          } catch (error) {
            if (codeOf(error) !== "ENOENT" || attempt > 2) refuse(index, path)
            try {
              f.mkdirSync(path, 0o755)
            } catch (made) {
              if (codeOf(made) !== "EEXIST") throw made
            }
          }
        }
        closing(next, (sub) => into(sub, index + 1))
      }
      const write = (dir: number): void => {
        const path = at(dir, parts.at(-1)!)
        let fd: number
        try {
          fd = f.openSync(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644)
        } catch (error) {
          refuse(parts.length - 1, path, codeOf(error) === "ENXIO" ? "is not a regular file: refused" : undefined)
          return
        }
        closing(fd, () => {
          if (!f.fstatSync(fd).isFile()) refuse(parts.length - 1, path, "is not a regular file: refused")
          f.ftruncateSync(fd, 0)
          f.writeSync(fd, contentBytes(content))
        })
      }
      into(top, 0)
    }
  })
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
  return {
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    ...(text === undefined ? {} : { text })
  }
}

/** A workspace read: every file (sorted by path), `truncated` when there were more than `MAX_FILES`. */
interface Walked {
  readonly files: Record<string, FileState>
  readonly truncated: boolean
}

/**
 * Every file under `root` (directories walked, links not followed but shown as links), sorted by
 * path, at most `MAX_FILES`; `truncated` when there were more. Walked from directory handles (see
 * `at`): a directory swapped for a link while it is read is not followed. `onFile` is handed each
 * regular file's bytes as read.
 */
export const readWorkspace = (root: string, onFile?: (path: string, bytes: Buffer) => void): Walked => {
  const f = fs()
  const files: Record<string, FileState> = {}
  let count = 0
  let hashed = 0
  let truncated = false
  const file = (path: string, name: string): void => {
    let fd: number
    try {
      fd = f.openSync(name, f.constants.O_RDONLY | f.constants.O_NOFOLLOW | f.constants.O_NONBLOCK)
    } catch {
      return
    }
    closing(fd, () => {
      const stat = f.fstatSync(fd)
      if (!stat.isFile()) return
      count++
      if (hashed + stat.size > HASH_LIMIT) {
        files[path] = { size: stat.size, sha256: "" }
        return
      }
      const bytes = f.readFileSync(fd)
      hashed += bytes.length
      files[path] = stateOf(bytes)
      onFile?.(path, bytes)
    })
  }
  const walk = (dir: number, prefix: string, depth: number): void => {
    let entries: Array<Fs.Dirent>
    try {
      entries = f
        .readdirSync(listing(dir), { withFileTypes: true })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    } catch {
      return
    }
    for (const entry of entries) {
      if (count >= MAX_FILES) {
        truncated = true
        return
      }
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
      const name = at(dir, entry.name)
      if (entry.isDirectory()) {
        if (depth >= MAX_DEPTH) continue
        let sub: number
        try {
          sub = openDirectory(name)
        } catch {
          continue
        }
        closing(sub, () => walk(sub, path, depth + 1))
      } else if (entry.isSymbolicLink()) {
        let target: string
        try {
          target = f.readlinkSync(name)
        } catch {
          continue
        }
        count++
        files[path] = { ...stateOf(Buffer.from(target)), link: target }
      } else if (entry.isFile()) file(path, name)
    }
  }
  try {
    closing(openRoot(root), (top) => walk(top, "", 0))
  } catch {
    // A workspace that is not there (any more) has no files.
  }
  return { files, truncated }
}

/** What changed from `before` to `after`, each list sorted. */
export const changesOf = (
  before: Readonly<Record<string, FileState>>,
  after: Readonly<Record<string, FileState>>
): WorkspaceChanges => ({
  created: Object.keys(after)
    .filter((path) => before[path] === undefined)
    .sort(),
  changed: Object.keys(after)
    .filter((path) => before[path] !== undefined && before[path]!.sha256 !== after[path]!.sha256)
    .sort(),
  deleted: Object.keys(before)
    .filter((path) => after[path] === undefined)
    .sort()
})

/** The states of a fixture's files, as the workspace will show them once laid out. */
export const statesOf = (files: Readonly<Record<string, FileContent>>): Record<string, FileState> =>
  Object.fromEntries(Object.entries(files).map(([path, content]) => [path, stateOf(contentBytes(content))]))

/**
 * The files under `root` as a fixture's `files` (text when UTF-8 without NUL, else base64), to
 * carry in a snapshot; `omitted`, the paths left out (links and files past the walk's limits),
 * which a restore leaves as they are; `truncated` when the walk stopped at `MAX_FILES`.
 */
export const workspaceFiles = (
  root: string
): {
  readonly files: Record<string, FileContent>
  readonly omitted: ReadonlyArray<string>
  readonly truncated: boolean
} => {
  const files: Record<string, FileContent> = {}
  const read = readWorkspace(root, (path, bytes) => {
    const text = textOf(bytes)
    files[path] = text !== undefined ? text : { base64: bytes.toString("base64") }
  })
  return {
    files,
    omitted: Object.keys(read.files).filter((path) => files[path] === undefined),
    truncated: read.truncated
  }
}

/** The most entries a restore looks at when it removes what a snapshot does not hold. */
const MAX_REMOVED = 100_000

/**
 * Makes the workspace under `root` hold only `keep` (paths of files and links) and the
 * directories above them: every other file, link, FIFO or directory is removed, a directory
 * with all it holds. Nothing is followed: each name is removed through the handle of the
 * directory that holds it (`unlink` and `rmdir` never follow the last component), and a
 * directory is entered only as one (see `at`). At most `MAX_REMOVED` entries are looked at and
 * `MAX_DEPTH` levels entered; what lies past them stays. The paths removed, sorted.
 */
export const keepOnly = (root: string, keep: ReadonlySet<string>): Array<string> => {
  const f = fs()
  const above = new Set<string>()
  for (const path of keep) {
    const parts = path.split("/")
    for (let i = 1; i < parts.length; i++) above.add(parts.slice(0, i).join("/"))
  }
  const removed: Array<string> = []
  let seen = 0
  // Everything in the directory `dir`, then the directory itself is left empty for its parent to remove.
  const empty = (dir: number, depth: number): void => {
    let names: Array<string>
    try {
      names = f.readdirSync(listing(dir))
    } catch {
      return
    }
    for (const name of names) {
      if (++seen > MAX_REMOVED) return
      remove(dir, name, depth)
    }
  }
  const remove = (dir: number, name: string, depth: number): boolean => {
    const path = at(dir, name)
    try {
      f.unlinkSync(path)
      return true
    } catch (error) {
      // EISDIR (Linux's answer to unlink on a directory): empty it, then remove it.
      if (codeOf(error) !== "EISDIR" || depth >= MAX_DEPTH) return false
    }
    try {
      closing(openDirectory(path), (sub) => empty(sub, depth + 1))
      f.rmdirSync(path)
      return true
    } catch {
      return false
    }
  }
  const walk = (dir: number, prefix: string, depth: number): void => {
    let entries: Array<Fs.Dirent>
    try {
      entries = f.readdirSync(listing(dir), { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (++seen > MAX_REMOVED) return
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
      if (entry.isDirectory() && above.has(path)) {
        if (depth >= MAX_DEPTH) continue
        try {
          closing(openDirectory(at(dir, entry.name)), (sub) => walk(sub, path, depth + 1))
        } catch {
          // Swapped for something else since it was listed: not entered.
        }
        continue
      }
      if (keep.has(path) && !entry.isDirectory()) continue
      if (remove(dir, entry.name, depth)) removed.push(path)
    }
  }
  closing(openRoot(root), (top) => walk(top, "", 0))
  return removed.sort()
}
