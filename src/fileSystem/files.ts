/**
 * The files simnet writes (a recording, the proxy's CA, a failing property case) and the
 * directories it makes for them, written so that nothing is lost and nothing planted is followed:
 *
 * - a file is written whole or not at all: into a new file beside it, created exclusively
 *   (`O_CREAT | O_EXCL`, so an existing name, a symbolic link included, is never opened) under a
 *   random name, then renamed over the target (which replaces a link rather than writing
 *   through it);
 * - a directory is made one level at a time from its nearest existing ancestor, so a path that
 *   cannot exist (`/proc/nope/ca`, a path through a regular file) fails at once with a message,
 *   where `mkdirSync(…, { recursive: true })` can retry forever;
 * - a directory handed to a program is removed whatever the program did to its modes (`removeTree`).
 */
import { randomBytes } from "node:crypto"
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync
} from "node:fs"
import * as path from "node:path"
import { errorMessage } from "../registry/util.ts"

/**
 * Writes `data` to `file` whole or not at all, with `mode` (owner read-write and others read by
 * default). The temporary file is `.NAME.RANDOM.tmp` in `file`'s directory, created exclusively;
 * on failure it is removed and the error thrown, `file` untouched.
 */
export const writeFileAtomic = (file: string, data: string | Uint8Array, mode: number = 0o644): void => {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
  const fd = openSync(temporary, "wx", mode)
  try {
    // The mode exactly, whatever the umask: a key must not come out group-readable.
    fchmodSync(fd, mode)
    const bytes = typeof data === "string" ? Buffer.from(data) : data
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    unlinkSync(temporary)
    throw error
  }
  closeSync(fd)
  try {
    renameSync(temporary, file)
  } catch (error) {
    unlinkSync(temporary)
    throw error
  }
}

/** The error of a filesystem call, with the path it concerned and what it means. */
const reason = (error: unknown): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  return code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "ENOENT"
      ? "it cannot be made there"
      : code === "ENOTDIR"
        ? "a part of the path is not a directory"
        : code === "EROFS"
          ? "the filesystem is read-only"
          : errorMessage(error)
}

/**
 * Makes `dir` and any missing parents (each with `mode`), or throws an `Error` whose message names
 * the part of the path that could not be made and why. Does nothing when `dir` is a directory.
 */
export const makeDirectory = (dir: string, mode: number = 0o755): void => {
  const missing: Array<string> = []
  let at = path.resolve(dir)
  // Up to the nearest ancestor that exists: at most one step per path component.
  for (;;) {
    let isDirectory: boolean
    try {
      isDirectory = statSync(at).isDirectory()
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
      const up = path.dirname(at)
      if (code !== "ENOENT" || up === at) throw new Error(`cannot make ${dir}: ${at}: ${reason(error)}`)
      missing.push(at)
      at = up
      continue
    }
    if (!isDirectory) throw new Error(`cannot make ${dir}: ${at} is not a directory`)
    break
  }
  for (const part of missing.reverse()) {
    try {
      mkdirSync(part, { mode })
    } catch (error) {
      // Made by someone else in between: fine, if it is a directory.
      const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
      if (code === "EEXIST" && statSync(part).isDirectory()) continue
      throw new Error(`cannot make ${dir}: ${part}: ${reason(error)}`)
    }
  }
}

/** The most entries `removeTree` opens up when a first removal fails, and the deepest it goes. */
const OPEN_UP_LIMIT = 100_000
const OPEN_UP_DEPTH = 64

/**
 * Removes a directory simnet made and handed to a program (a run's working directory), with all it
 * holds, never following a link. When the program left directories its owner cannot read or
 * write into (mode 000), they are opened up to the owner (a bounded walk: links not followed) and
 * the removal tried again. Never throws: false when something is left.
 */
export const removeTree = (dir: string): boolean => {
  const remove = () => {
    try {
      rmSync(dir, { recursive: true, force: true })
      return true
    } catch {
      return false
    }
  }
  if (remove()) return true
  let opened = 0
  const openUp = (at: string, depth: number): void => {
    if (depth > OPEN_UP_DEPTH || opened++ > OPEN_UP_LIMIT) return
    try {
      if (!lstatSync(at).isDirectory()) return
      chmodSync(at, 0o700)
      for (const name of readdirSync(at)) openUp(path.join(at, name), depth + 1)
    } catch {
      // Gone, or not ours to open: the removal below says what is left.
    }
  }
  openUp(dir, 0)
  return remove()
}
