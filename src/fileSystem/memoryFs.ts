/**
 * Effect's `FileSystem.FileSystem` from memory, for `SimulationFileSystem.layer` (issue 35): a tree
 * of directories and files seeded from a fixture's `files`, changed only through the service.
 * Paths are POSIX; a relative one is taken from the root (`/`). `stat` is deterministic: the
 * times are the Effect `Clock`'s when the entry was last written (a `TestClock` makes them
 * exact), inode numbers count up in the order entries were made, owner 0. The seeded entries are
 * written at the first use of the file system, on the `Clock` of the fiber that uses it: the layer
 * may be built where no `TestClock` is (merged beside one, `Layer.merge(fsLayer, TestClock.layer())`),
 * and its seed must not carry the wall clock's time into a test that reads times. What the real one
 * would refuse is refused with the same `PlatformError` reason — `NotFound`, `AlreadyExists`,
 * `BadResource` (a directory read as a file, or a file as a directory), `Busy` (a directory that
 * is not empty) —, and what this one does not do (links, `open` and what is built on it: `stream`,
 * `sink`; `watch`) is a `BadArgument` naming it: never the host's file system in its place.
 */
import { ByteSize, Clock, Effect, FileSystem, Option, Stream } from "effect"
import * as PlatformError from "effect/PlatformError"
import * as posix from "node:path/posix"
import { contentBytes, type FileContent, pathProblem, textOf } from "./workspace.ts"

type Entry =
  | { readonly kind: "file"; bytes: Uint8Array; mtime: number; mode: number; readonly ino: number; birth: number }
  | { readonly kind: "directory"; mtime: number; mode: number; readonly ino: number; birth: number }

/** The in-memory file system's own state, beside the `FileSystem` it serves. */
export interface MemoryFs {
  readonly fileSystem: FileSystem.FileSystem
  /** Every file, as a fixture's `files` would give it (text when UTF-8, else base64), by path from the root without its leading `/`. */
  readonly files: () => Record<string, FileContent>
  /** Replaces every file and directory with `files`, made at `now` (a snapshot restored); a bad path throws naming it, changing nothing. */
  readonly replace: (files: Readonly<Record<string, FileContent>>, now: number) => void
}

/** The time of a seeded entry until the file system is first used (see the module's comment). */
const UNSTAMPED = 0

const MODULE = "SimulationFileSystem"

/**
 * Makes the in-memory file system, seeded with `files` (paths relative to the root; each checked
 * as a fixture's are; a bad one throws naming it), whose times are stamped at its first use.
 */
export const makeMemoryFs = (files: Readonly<Record<string, FileContent>>): MemoryFs => {
  const entries = new Map<string, Entry>()
  let inodes = 0
  let temps = 0
  const dir = (at: number): Entry => ({ kind: "directory", mtime: at, mode: 0o755, ino: ++inodes, birth: at })
  const notFound = (method: string, path: string) =>
    PlatformError.systemError({
      _tag: "NotFound",
      module: MODULE,
      method,
      pathOrDescriptor: path,
      description: `no such file or directory: ${path}`
    })
  const exists = (method: string, path: string) =>
    PlatformError.systemError({
      _tag: "AlreadyExists",
      module: MODULE,
      method,
      pathOrDescriptor: path,
      description: `already exists: ${path}`
    })
  const wrongKind = (method: string, path: string, what: string) =>
    PlatformError.systemError({
      _tag: "BadResource",
      module: MODULE,
      method,
      pathOrDescriptor: path,
      description: `${path} is ${what}`
    })
  const unsupported = (method: string, what: string) =>
    PlatformError.badArgument({
      module: MODULE,
      method,
      description: `simnet's SimulationFileSystem does not do ${what}: it holds files and directories in memory, nothing else (and never reaches the host's file system)`
    })
  const norm = (path: string) => posix.resolve("/", path)
  const parentOf = (path: string) => posix.dirname(path)
  const children = (path: string) => {
    const prefix = path === "/" ? "/" : `${path}/`
    return [...entries.keys()]
      .filter((key) => key !== path && key.startsWith(prefix) && !key.slice(prefix.length).includes("/"))
      .sort()
  }
  const descendants = (path: string) => {
    const prefix = path === "/" ? "/" : `${path}/`
    return [...entries.keys()].filter((key) => key !== path && key.startsWith(prefix)).sort()
  }
  const parentDirectory = (method: string, path: string): Effect.Effect<void, PlatformError.PlatformError> => {
    const parent = entries.get(parentOf(path))
    return parent === undefined
      ? Effect.fail(notFound(method, parentOf(path)))
      : parent.kind !== "directory"
        ? Effect.fail(wrongKind(method, parentOf(path), "a file, not a directory"))
        : Effect.void
  }
  const writeAt = (path: string, bytes: Uint8Array, at: number) => {
    const found = entries.get(path)
    if (found?.kind === "file") {
      found.bytes = bytes
      found.mtime = at
    } else entries.set(path, { kind: "file", bytes, mtime: at, mode: 0o644, ino: ++inodes, birth: at })
  }

  // The seed: every file's directories made first, in path order, so inode numbers do not depend on the object's order.
  const seed = (given: Readonly<Record<string, FileContent>>, at: number) => {
    const sorted = Object.entries(given).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    for (const [file] of sorted) {
      const problem = pathProblem(file)
      if (problem !== undefined) throw new Error(`files[${JSON.stringify(file)}]: ${problem}`)
    }
    entries.clear()
    inodes = 0
    entries.set("/", dir(at))
    for (const [file, content] of sorted) {
      const path = norm(file)
      const parts = path.split("/").slice(1, -1)
      for (let i = 1; i <= parts.length; i++) {
        const step = `/${parts.slice(0, i).join("/")}`
        if (!entries.has(step)) entries.set(step, dir(at))
      }
      writeAt(path, new Uint8Array(contentBytes(content)), at)
    }
  }
  seed(files, UNSTAMPED)
  /** The seeded entries, until the first use of the file system writes them at its `Clock`'s time. */
  let unstamped: Array<Entry> = [...entries.values()]
  const stampSeed = Effect.suspend(() =>
    unstamped.length === 0
      ? Effect.void
      : Effect.map(Clock.currentTimeMillis, (at) => {
          for (const entry of unstamped) entry.mtime = entry.birth = at
          unstamped = []
        })
  )
  /** Every method of `methods`, running `stampSeed` before its own work when it is an Effect. */
  const afterStamp = <T extends object>(methods: T): T =>
    Object.fromEntries(
      Object.entries(methods).map(([name, method]) => [
        name,
        (...args: Array<unknown>) => {
          const out: unknown = (method as (...args: Array<unknown>) => unknown)(...args)
          return Effect.isEffect(out) ? Effect.andThen(stampSeed, out) : out
        }
      ])
    ) as T

  const info = (entry: Entry): FileSystem.File.Info => ({
    type: entry.kind === "file" ? "File" : "Directory",
    mtime: Option.some(new Date(entry.mtime)),
    atime: Option.some(new Date(entry.mtime)),
    birthtime: Option.some(new Date(entry.birth)),
    dev: 0n,
    ino: Option.some(BigInt(entry.ino)),
    mode: entry.mode,
    nlink: Option.some(1n),
    uid: Option.some(0),
    gid: Option.some(0),
    rdev: Option.some(0n),
    size: ByteSize.bytes(BigInt(entry.kind === "file" ? entry.bytes.length : 4096)),
    blksize: Option.some(ByteSize.bytes(4096n)),
    blocks: Option.some(BigInt(Math.ceil((entry.kind === "file" ? entry.bytes.length : 4096) / 512)))
  })

  const get = (method: string, given: string) =>
    Effect.suspend(() => {
      const path = norm(given)
      const entry = entries.get(path)
      return entry === undefined ? Effect.fail(notFound(method, given)) : Effect.succeed({ path, entry })
    })

  const file = (method: string, given: string) =>
    Effect.flatMap(get(method, given), ({ path, entry }) =>
      entry.kind === "file" ? Effect.succeed({ path, entry }) : Effect.fail(wrongKind(method, given, "a directory"))
    )

  const makeDirectory = (
    given: string,
    options?: { readonly recursive?: boolean | undefined; readonly mode?: number | undefined }
  ) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) =>
      Effect.suspend(() => {
        const path = norm(given)
        const found = entries.get(path)
        if (found !== undefined)
          return options?.recursive === true && found.kind === "directory"
            ? Effect.void
            : Effect.fail(exists("makeDirectory", given))
        if (options?.recursive !== true)
          return Effect.map(
            parentDirectory("makeDirectory", path),
            () => void entries.set(path, { ...dir(at), mode: options?.mode ?? 0o755 })
          )
        const parts = path.split("/").slice(1)
        for (let i = 1; i <= parts.length; i++) {
          const step = `/${parts.slice(0, i).join("/")}`
          const there = entries.get(step)
          if (there?.kind === "file") return Effect.fail(wrongKind("makeDirectory", step, "a file, not a directory"))
          if (there === undefined) entries.set(step, { ...dir(at), mode: options?.mode ?? 0o755 })
        }
        return Effect.void
      })
    )

  const remove = (
    given: string,
    options?: { readonly recursive?: boolean | undefined; readonly force?: boolean | undefined }
  ) =>
    Effect.suspend(() => {
      const path = norm(given)
      const entry = entries.get(path)
      if (entry === undefined) return options?.force === true ? Effect.void : Effect.fail(notFound("remove", given))
      if (path === "/")
        return Effect.fail(
          PlatformError.systemError({
            _tag: "PermissionDenied",
            module: MODULE,
            method: "remove",
            pathOrDescriptor: given,
            description: "the root cannot be removed"
          })
        )
      const under = descendants(path)
      if (entry.kind === "directory" && under.length > 0 && options?.recursive !== true) {
        return Effect.fail(
          PlatformError.systemError({
            _tag: "Busy",
            module: MODULE,
            method: "remove",
            pathOrDescriptor: given,
            description: `directory not empty: ${given}`
          })
        )
      }
      for (const key of under) entries.delete(key)
      entries.delete(path)
      return Effect.void
    })

  const copyTree = (method: string, from: string, to: string, overwrite: boolean) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) =>
      Effect.flatMap(get(method, from), ({ path }) =>
        Effect.suspend(() => {
          const target = norm(to)
          if (entries.has(target) && !overwrite) return Effect.fail(exists(method, to))
          return Effect.map(parentDirectory(method, target), () => {
            const moves = [
              [path, target] as const,
              ...descendants(path).map((key) => [key, `${target}${key.slice(path.length)}`] as const)
            ]
            for (const [source, destination] of moves) {
              const it = entries.get(source)!
              if (it.kind === "file") writeAt(destination, it.bytes.slice(), at)
              else if (!entries.has(destination)) entries.set(destination, { ...dir(at), mode: it.mode })
            }
          })
        })
      )
    )

  const temp = (
    options:
      | {
          readonly directory?: string | undefined
          readonly prefix?: string | undefined
          readonly suffix?: string | undefined
        }
      | undefined,
    kind: "file" | "directory"
  ) =>
    Effect.gen(function* () {
      const base = norm(options?.directory ?? "/tmp")
      yield* makeDirectory(base, { recursive: true })
      const path = posix.join(
        base,
        `${options?.prefix ?? "tmp-"}${++temps}${kind === "file" ? (options?.suffix ?? "") : ""}`
      )
      const at = yield* Clock.currentTimeMillis
      if (kind === "directory") entries.set(path, dir(at))
      else writeAt(path, new Uint8Array(), at)
      return path
    })

  const fileSystem = FileSystem.make(
    afterStamp({
      access: (path) => Effect.asVoid(get("access", path)),
      chmod: (path, mode) => Effect.map(get("chmod", path), ({ entry }) => void (entry.mode = mode)),
      chown: (path) => Effect.asVoid(get("chown", path)),
      copy: (from, to, options) => copyTree("copy", from, to, options?.overwrite === true),
      copyFile: (from, to) => Effect.flatMap(file("copyFile", from), () => copyTree("copyFile", from, to, true)),
      link: () => Effect.fail(unsupported("link", "hard links")),
      lstat: (path) => Effect.map(get("lstat", path), ({ entry }) => info(entry)),
      makeDirectory,
      makeTempDirectory: (options) => temp(options, "directory"),
      makeTempDirectoryScoped: (options) =>
        Effect.acquireRelease(temp(options, "directory"), (path) => Effect.ignore(remove(path, { recursive: true }))),
      makeTempFile: (options) => temp(options, "file"),
      makeTempFileScoped: (options) =>
        Effect.acquireRelease(temp(options, "file"), (path) => Effect.ignore(remove(path))),
      open: () =>
        Effect.fail(
          unsupported("open", "open file handles (nor stream and sink, built on them): read and write whole files")
        ),
      readDirectory: (given, options) =>
        Effect.flatMap(get("readDirectory", given), ({ path, entry }) => {
          if (entry.kind !== "directory")
            return Effect.fail(wrongKind("readDirectory", given, "a file, not a directory"))
          const prefix = path === "/" ? "/" : `${path}/`
          return Effect.succeed(
            (options?.recursive === true ? descendants(path) : children(path)).map((key) => key.slice(prefix.length))
          )
        }),
      readDirectoryEntries: (given) =>
        Effect.flatMap(get("readDirectoryEntries", given), ({ path, entry }) =>
          entry.kind !== "directory"
            ? Effect.fail(wrongKind("readDirectoryEntries", given, "a file, not a directory"))
            : Effect.succeed(
                children(path).map((key) => ({
                  name: posix.basename(key),
                  type: entries.get(key)!.kind === "file" ? ("File" as const) : ("Directory" as const)
                }))
              )
        ),
      readFile: (path) => Effect.map(file("readFile", path), ({ entry }) => entry.bytes.slice()),
      readLink: () => Effect.fail(unsupported("readLink", "symbolic links")),
      realPath: (path) => Effect.map(get("realPath", path), (found) => found.path),
      remove,
      rename: (from, to) =>
        Effect.flatMap(get("rename", from), ({ path }) =>
          Effect.suspend(() => {
            const target = norm(to)
            if (target === path) return Effect.void
            if (target.startsWith(`${path}/`))
              return Effect.fail(
                PlatformError.badArgument({
                  module: MODULE,
                  method: "rename",
                  description: `cannot move ${from} into itself`
                })
              )
            return Effect.map(parentDirectory("rename", target), () => {
              for (const key of [path, ...descendants(path)]) {
                const entry = entries.get(key)!
                entries.delete(key)
                entries.set(`${target}${key.slice(path.length)}`, entry)
              }
            })
          })
        ),
      stat: (path) => Effect.map(get("stat", path), ({ entry }) => info(entry)),
      symlink: () => Effect.fail(unsupported("symlink", "symbolic links")),
      truncate: (path, length) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) =>
          Effect.map(file("truncate", path), ({ entry }) => {
            const bytes = new Uint8Array(Number(length ?? 0))
            bytes.set(entry.bytes.subarray(0, bytes.length))
            entry.bytes = bytes
            entry.mtime = at
          })
        ),
      utimes: (path, _atime, mtime) =>
        Effect.map(
          get("utimes", path),
          ({ entry }) => void (entry.mtime = typeof mtime === "number" ? mtime : mtime.getTime())
        ),
      watch: () => Stream.fail(unsupported("watch", "watching")),
      writeFile: (given, data, options) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) =>
          Effect.suspend(() => {
            const path = norm(given)
            const flag = options?.flag ?? "w"
            const found = entries.get(path)
            if (found?.kind === "directory") return Effect.fail(wrongKind("writeFile", given, "a directory"))
            if (found !== undefined && flag.includes("x")) return Effect.fail(exists("writeFile", given))
            if (found === undefined && flag.startsWith("r")) return Effect.fail(notFound("writeFile", given))
            return Effect.map(parentDirectory("writeFile", path), () => {
              const bytes =
                flag.startsWith("a") && found?.kind === "file"
                  ? new Uint8Array([...found.bytes, ...data])
                  : data.slice()
              writeAt(path, bytes, at)
              if (options?.mode !== undefined) (entries.get(path) as Entry).mode = options.mode
            })
          })
        )
    })
  )

  const snapshot = (): Record<string, FileContent> => {
    const out: Record<string, FileContent> = {}
    for (const [path, entry] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (entry.kind !== "file") continue
      out[path.slice(1)] = textOf(entry.bytes) ?? { base64: Buffer.from(entry.bytes).toString("base64") }
    }
    return out
  }

  const replace = (given: Readonly<Record<string, FileContent>>, now: number) => {
    seed(given, now)
    unstamped = []
  }

  return { fileSystem, files: snapshot, replace }
}
