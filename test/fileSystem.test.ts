/**
 * `SimulationFileSystem.layer` (issue 35): an Effect program using Effect's own `FileSystem` on a
 * seeded, in-memory file system — reads, writes, directories, `stat` from the `TestClock`, removal,
 * the real one's refusals as the same `PlatformError` reasons, and what it does not do refused by
 * name rather than done on the host. Its `files`, kept and given to a fresh process, lay out the
 * same files there.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, FileSystem, Layer, Option } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { SimulationFileSystem } from "../src/SimulationFileSystem.ts"
import { SimulationNetwork } from "../src/SimulationNetwork.ts"

const seeded = SimulationFileSystem.layer({
  files: { "notes.txt": "buy milk\n", "src/app.ts": "export {}\n", "assets/logo.bin": { base64: "AAECAw==" } }
})

describe("SimulationFileSystem.layer", () => {
  it.effect("reads, writes, lists, stats and removes, as Effect's FileSystem does", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      expect(yield* fs.readFileString("notes.txt")).toBe("buy milk\n")
      expect(yield* fs.readFile("/assets/logo.bin")).toEqual(new Uint8Array([0, 1, 2, 3]))
      expect(yield* fs.readDirectory("/")).toEqual(["assets", "notes.txt", "src"])
      expect(yield* fs.readDirectory("/", { recursive: true })).toEqual([
        "assets",
        "assets/logo.bin",
        "notes.txt",
        "src",
        "src/app.ts"
      ])
      const seededAt = (yield* fs.stat("notes.txt")).mtime
      yield* TestClock.adjust(Duration.seconds(5))
      yield* fs.writeFileString("out/report.md", "# report\n").pipe(
        Effect.flip,
        Effect.map((error) => expect(error.reason._tag).toBe("NotFound"))
      )
      yield* fs.makeDirectory("out/deep", { recursive: true })
      yield* fs.writeFileString("out/deep/report.md", "# report\n")
      yield* fs.writeFileString("notes.txt", "and eggs\n", { flag: "a" })
      expect(yield* fs.readFileString("notes.txt")).toBe("buy milk\nand eggs\n")
      const info = yield* fs.stat("notes.txt")
      expect(info.type).toBe("File")
      expect(Number(info.size)).toBe(18)
      expect(Option.getOrThrow(info.mtime).getTime() - Option.getOrThrow(seededAt).getTime()).toBe(5_000)
      expect((yield* fs.stat("out")).type).toBe("Directory")
      expect(yield* fs.exists("src/app.ts")).toBe(true)
      yield* fs.remove("src/app.ts")
      expect(yield* fs.exists("src/app.ts")).toBe(false)
      yield* fs.rename("out", "done")
      expect(yield* fs.readFileString("done/deep/report.md")).toBe("# report\n")
      expect(yield* SimulationFileSystem.files).toEqual({
        "assets/logo.bin": { base64: "AAECAw==" },
        "done/deep/report.md": "# report\n",
        "notes.txt": "buy milk\nand eggs\n"
      })
    }).pipe(Effect.provide(seeded))
  )

  it.effect("refuses as the real one does, with the same reasons; what it does not do is a BadArgument naming it", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const reason = <A>(effect: Effect.Effect<A, import("effect/PlatformError").PlatformError>) =>
        Effect.map(Effect.flip(effect), (error) => error.reason._tag)
      expect(yield* reason(fs.readFileString("missing.txt"))).toBe("NotFound")
      expect(yield* reason(fs.readFile("src"))).toBe("BadResource")
      expect(yield* reason(fs.makeDirectory("src"))).toBe("AlreadyExists")
      expect(yield* reason(fs.writeFileString("notes.txt", "x", { flag: "wx" }))).toBe("AlreadyExists")
      expect(yield* reason(fs.remove("src"))).toBe("Busy")
      expect(yield* reason(fs.remove("nothing/here"))).toBe("NotFound")
      yield* fs.remove("nothing/here", { force: true })
      const link = yield* Effect.flip(fs.symlink("notes.txt", "link"))
      expect(link.reason._tag).toBe("BadArgument")
      expect(link.message).toContain("does not do symbolic links")
      expect((yield* Effect.flip(Effect.scoped(fs.open("notes.txt")))).reason._tag).toBe("BadArgument")
      // Paths outside the root stay inside it: "/.." is "/".
      expect(yield* fs.readFileString("../../notes.txt")).toBe("buy milk\n")
    }).pipe(Effect.provide(seeded))
  )

  it.effect(
    "given a network, the network's snapshot carries the files, and restoring it lays them out; a bad one changes nothing",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const network = yield* SimulationNetwork
        yield* fs.writeFileString("out.txt", "written")
        const state = yield* network.state
        expect((state as unknown as { files: Record<string, unknown> }).files).toEqual({
          "notes.txt": "buy milk\n",
          "out.txt": "written"
        })
        yield* fs.remove("out.txt")
        yield* fs.writeFileString("notes.txt", "changed")
        const bad = yield* Effect.flip(network.restore({ ...state, files: { "../x": "escape" } }))
        expect(bad).toMatchObject({ _tag: "InvalidRouteSpec", path: `files["../x"]` })
        expect(yield* fs.readFileString("notes.txt")).toBe("changed")
        yield* network.restore(state)
        expect(yield* fs.readFileString("out.txt")).toBe("written")
        expect(yield* fs.readFileString("notes.txt")).toBe("buy milk\n")
      }).pipe(
        Effect.provide(
          Layer.provideMerge(
            SimulationFileSystem.layer({ files: { "notes.txt": "buy milk\n" } }),
            SimulationNetwork.layer({ seed: 1 })
          )
        )
      )
  )

  it("merged beside a TestClock, the seeded files' times are the TestClock's, not the wall clock's", async () => {
    const program = Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      yield* TestClock.adjust(Duration.seconds(30))
      const notes = yield* fs.stat("notes.txt")
      const root = yield* fs.stat("/")
      yield* TestClock.adjust(Duration.minutes(1))
      yield* fs.writeFileString("later.txt", "x")
      const later = yield* fs.stat("later.txt")
      const again = yield* fs.stat("notes.txt")
      const ms = (date: Option.Option<Date>) => Option.getOrThrow(date).getTime()
      return [ms(notes.mtime), ms(notes.birthtime), ms(root.mtime), ms(later.mtime), ms(again.mtime)]
    })
    // The file system's layer is built where no TestClock is; the program runs on the TestClock.
    const times = await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(seeded, TestClock.layer()))))
    expect(times).toEqual([30_000, 30_000, 30_000, 90_000, 30_000])
  })

  it("a path that escapes in the seed is refused, naming it", () => {
    expect(() =>
      Effect.runSync(Effect.provide(Effect.void, SimulationFileSystem.layer({ files: { "../etc/passwd": "x" } })))
    ).toThrow(`files["../etc/passwd"]: must stay inside the workspace`)
  })

  it("the network's snapshot, restored in a fresh process, lays out the same files there", async () => {
    const { files, state } = await Effect.runPromise(
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        yield* fs.makeDirectory("made")
        yield* fs.writeFileString("made/here.txt", "in the first process")
        return { files: yield* SimulationFileSystem.files, state: yield* (yield* SimulationNetwork).state }
      }).pipe(Effect.provide(Layer.provideMerge(seeded, SimulationNetwork.layer({ seed: 3 }))))
    )
    // Beside the repository's node_modules, so that the fresh process finds effect as an app would.
    const cache = join(import.meta.dirname, "..", "node_modules", ".cache")
    mkdirSync(cache, { recursive: true })
    const dir = mkdtempSync(join(cache, "simnet-fs-"))
    const kept = join(dir, "snapshot.json")
    writeFileSync(kept, JSON.stringify(state))
    const script = join(dir, "fresh.mjs")
    writeFileSync(
      script,
      `
import { readFileSync } from "node:fs"
import { Effect, FileSystem } from "effect"
import { Layer } from "effect"
import { SimulationFileSystem } from ${JSON.stringify(join(import.meta.dirname, "..", "src", "SimulationFileSystem.ts"))}
import { SimulationNetwork } from ${JSON.stringify(join(import.meta.dirname, "..", "src", "SimulationNetwork.ts"))}
const snapshot = JSON.parse(readFileSync(${JSON.stringify(kept)}, "utf8"))
const listed = await Effect.runPromise(Effect.gen(function*() {
  yield* (yield* SimulationNetwork).restore(snapshot)
  const fs = yield* FileSystem.FileSystem
  const paths = yield* fs.readDirectory("/", { recursive: true })
  return { paths, here: yield* fs.readFileString("made/here.txt"), again: yield* SimulationFileSystem.files }
}).pipe(Effect.provide(Layer.provideMerge(SimulationFileSystem.layer(), SimulationNetwork.layer()))))
process.stdout.write(JSON.stringify(listed))
`
    )
    const run = spawnSync(process.execPath, [script], { cwd: join(import.meta.dirname, ".."), encoding: "utf8" })
    expect(run.status, run.stderr).toBe(0)
    const seen = JSON.parse(run.stdout) as { paths: Array<string>; here: string; again: unknown }
    expect(seen.paths).toEqual(["assets", "assets/logo.bin", "made", "made/here.txt", "notes.txt", "src", "src/app.ts"])
    expect(seen.here).toBe("in the first process")
    expect(seen.again).toEqual(files)
    // Nothing of it on the host's file system.
    expect(existsSync("made/here.txt")).toBe(false)
  })
})
