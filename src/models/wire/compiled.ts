/**
 * A request Schema's decoder compiled once into plain code by Effect's own schema compiler
 * (`SchemaJITCompiler`), for the Schemas every model call decodes its body with. The compiled
 * decoder takes and refuses what the interpreter does and reports the same issues (held to it by
 * `test/internal/compiledDecoder.test.ts`); where code cannot be made (a runtime that forbids
 * `new Function`) or a Schema is outside what the compiler takes, the interpreter runs, as before.
 * A model call over loopback spent about a tenth of its server CPU in the interpreter.
 */
import { type Exit, Schema } from "effect"
import { SchemaJITCompiler } from "effect/schema"

/** `Schema.decodeUnknownExit(schema)`, compiled. */
export const compiledDecoder = <S extends Schema.Top>(
  schema: S
): ((input: unknown) => Exit.Exit<S["Type"], Schema.SchemaError>) => {
  SchemaJITCompiler.enable(schema.ast)
  return Schema.decodeUnknownExit(schema as unknown as Schema.Codec<S["Type"], unknown>)
}
