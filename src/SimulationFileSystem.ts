/**
 * `SimulationFileSystem`: Effect's own `FileSystem.FileSystem` from memory, for an Effect app's
 * files in a test (issue 35). `SimulationFileSystem.layer({ files })` provides both the
 * `FileSystem` the app uses and this service, whose `files` is what the file system holds now, as
 * a fixture's `files` (`{ PATH: text | { base64 } }`): keep it, and a fresh process given it lays
 * out the same files. Given a `SimulationNetwork` (`Layer.provide`), the network's snapshot
 * carries the files and restoring one lays them out. Behaviour and refusals: `fileSystem/memoryFs.ts`.
 * A public face.
 */
import { Clock, Context, Effect, FileSystem, Layer, Option } from "effect"
import { InvalidRouteSpec } from "./SimnetError.ts"
import { SimulationNetwork } from "./SimulationNetwork.ts"
import { makeMemoryFs } from "./fileSystem/memoryFs.ts"
import type { FileContent } from "./fileSystem/workspace.ts"

export type { FileContent } from "./fileSystem/workspace.ts"

/** Options of `SimulationFileSystem.layer`. */
export interface SimulationFileSystemOptions {
  /** The files it starts with, by path from its root (`notes.txt`, `src/app.ts`): text, or `{ base64 }`. */
  readonly files?: Readonly<Record<string, FileContent>> | undefined
}

/** The in-memory file system's own view: what it holds now. */
export interface SimulationFileSystemApi {
  /** Every file it holds, as a fixture's `files`: text when UTF-8, else `{ base64 }`. */
  readonly files: Effect.Effect<Record<string, FileContent>>
}

/** The in-memory file system (see the module's comment). */
export class SimulationFileSystem extends Context.Service<SimulationFileSystem, SimulationFileSystemApi>()(
  "simnet/SimulationFileSystem"
) {
  /**
   * Provides `FileSystem.FileSystem` from memory, seeded with `options.files` (over the `files`
   * of the network it is given, a fixture's among them), and this service. The seeded files are
   * written at the first use, on the `Clock` of the fiber that uses them, so a `TestClock` merged
   * beside the layer sets their times. A path that escapes the root in `files` is a defect naming
   * it, as a fixture's is refused.
   */
  static layer(options: SimulationFileSystemOptions = {}): Layer.Layer<FileSystem.FileSystem | SimulationFileSystem> {
    return Layer.effectContext(
      Effect.gen(function* () {
        // Given a network (`Layer.provide(SimulationNetwork.layer(…))`), the files it was started
        // with come first, and its snapshot carries these files.
        const network = yield* Effect.serviceOption(SimulationNetwork)
        const memory = makeMemoryFs(
          Option.isSome(network) ? { ...network.value.files, ...options.files } : (options.files ?? {})
        )
        if (Option.isSome(network)) {
          yield* network.value.attachFiles({
            files: memory.files,
            restore: (files) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                Effect.try({
                  try: () => memory.replace(files, now),
                  catch: (error) =>
                    new InvalidRouteSpec({
                      path: "files",
                      message: error instanceof Error ? error.message : String(error)
                    })
                })
              )
          })
        }
        return Context.make(FileSystem.FileSystem, memory.fileSystem).pipe(
          Context.add(SimulationFileSystem, { files: Effect.sync(memory.files) })
        )
      })
    )
  }

  /** What the file system holds now (`SimulationFileSystemApi.files`). */
  static readonly files: Effect.Effect<Record<string, FileContent>, never, SimulationFileSystem> =
    SimulationFileSystem.use((fs) => fs.files)
}
