/**
 * The simulated model behind every model route (`Routes.openai`, `Routes.anthropic`,
 * `Routes.gemini`), reachable as `network.llm`: the service, its API (`api.ts`, where the model
 * decides its answers) and the shapes it takes and gives.
 */
import type { Scope } from "effect"
import { Cause, Context, Effect, Layer, Queue } from "effect"
import { errorMessage } from "../../registry/util.ts"
import type { InvalidLlmInput } from "../../SimnetError.ts"
import { SimulatedProviderApi } from "./api.ts"
import type { LlmInvocationNotice } from "./drivers.ts"
import type { ProviderOptions } from "./options.ts"
import type { LlmBehaviour, LlmMatch } from "./plan.ts"
import type { LlmRuleOptions } from "./rules.ts"
import type { LlmScript } from "../../schemas/llmScript.ts"

export { SimulatedProviderApi } from "./api.ts"
export { DEFAULT_EPOCH } from "./options.ts"
export type { DriverMethod, LlmInvocation, ProviderOptions, ProviderState, RuleState } from "./options.ts"
export type { LlmApi, LlmRequest, LlmTurn } from "./conversation.ts"
export type { DriverNotices, LlmInvocationNotice, PendingInvocation } from "./drivers.ts"
export type { DriverFinish } from "./invocation.ts"
export type { ScriptQueueState } from "./scriptQueue.ts"
export type { LlmLogEntry } from "./modelLog.ts"
export type { LlmAnswer, LlmBehaviour, LlmFailure, LlmMatch, LlmReply } from "./plan.ts"
export type { LlmRule, LlmRuleOptions } from "./rules.ts"
export type { StreamFault } from "./parts.ts"

/**
 * The simulated model as a service of the network. `SimulationNetwork.make` builds one per
 * network and provides it to the routes, which look it up with `routeService`;
 * `SimulationNetwork.layer` provides it to the app too, so Effect code reaches the model with
 * `yield* SimulatedProvider.enqueue(script)`.
 *
 * @example
 * it.effect("answers from the queue", () =>
 *   Effect.gen(function*() {
 *     yield* SimulatedProvider.enqueue({ steps: [[{ type: "text", content: "Hello!" }]] })
 *     yield* SimulatedProvider.rule({ lastUserMessage: "busy?" }, { type: "rateLimit" }, { times: 1 })
 *     // ... the app's model calls
 *   }).pipe(Effect.provide(SimulationNetwork.layer({ routes: Routes.openai() }))))
 */
export class SimulatedProvider extends Context.Service<SimulatedProvider, SimulatedProviderApi>()(
  "simnet/SimulatedProvider"
) {
  /**
   * A provider on its own, outside any network (to test scripts and rules directly). The plain
   * face of `SimulatedProviderApi.make`.
   *
   * @throws {InvalidLlmInput} for a bad `logLimit`.
   */
  static make(options: ProviderOptions = {}): SimulatedProviderApi {
    return new SimulatedProviderApi(options)
  }

  /**
   * A layer providing a new provider. `SimulationNetwork.layer` and `make` use the provider of
   * their context when there is one, so a test can hold the model it hands the network.
   */
  static layer(options: ProviderOptions = {}): Layer.Layer<SimulatedProvider, InvalidLlmInput> {
    return Layer.effect(SimulatedProvider, SimulatedProviderApi.make(options))
  }

  /** Adds a script to the queue of the context's provider (`llm.enqueue`); bad input fails with `InvalidLlmInput` and queues nothing. */
  static enqueue(script: LlmScript): Effect.Effect<void, InvalidLlmInput, SimulatedProvider> {
    return SimulatedProvider.use((llm) => SimulatedProviderApi.enqueue(llm, script))
  }

  /** Registers a rule on the context's provider (`llm.rule`): its id, or `InvalidLlmInput` with the rules unchanged. */
  static rule(
    match: LlmMatch,
    behaviour: LlmBehaviour,
    options: LlmRuleOptions = {}
  ): Effect.Effect<string, InvalidLlmInput, SimulatedProvider> {
    return SimulatedProvider.use((llm) => SimulatedProviderApi.rule(llm, match, behaviour, options))
  }

  /** Adds rules given as JSON to the context's provider, all or none (`llm.addRules`): their ids, or `InvalidLlmInput`. */
  static addRules(specs: unknown): Effect.Effect<ReadonlyArray<string>, InvalidLlmInput, SimulatedProvider> {
    return SimulatedProvider.use((llm) => SimulatedProviderApi.addRules(llm, specs))
  }

  /**
   * An in-process driver for the life of the layer: it attaches to the provider of the context
   * (`llm.attach`, so the last attach wins and pending invocations are replayed) and runs `drive`
   * for every invocation it is handed, each in its own fiber. `drive` answers with the provider's
   * `chunk`, `finish`, `fail` and `disconnect` — the same commands, decoded with the same Schemas,
   * as the driver socket's `llm.*` methods. When `drive` fails or dies, the invocation fails
   * with a 500 naming the error. Replaced by a later attach, the driver stops taking requests.
   *
   * @example
   * const Echo = SimulatedProvider.layerDrive((request, llm) =>
   *   Effect.andThen(llm.chunk({ id: request.id, items: [{ type: "textDelta", text: "hi" }] }), llm.finish({ id: request.id })))
   */
  static layerDrive<E, R>(
    drive: (request: LlmInvocationNotice, llm: SimulatedProviderApi) => Effect.Effect<void, E, R>
  ): Layer.Layer<never, never, SimulatedProvider | Exclude<R, Scope.Scope>> {
    return Layer.effectDiscard(
      Effect.gen(function* () {
        const llm = yield* SimulatedProvider
        const notices = yield* llm.attach
        const handle = (notice: LlmInvocationNotice) =>
          drive(notice, llm).pipe(
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.void
                : Effect.ignore(
                    llm.fail({
                      id: notice.id,
                      status: 500,
                      message: `simnet: the driver failed: ${errorMessage(Cause.squash(cause))}`
                    })
                  )
            ),
            Effect.forkScoped
          )
        yield* Effect.forkScoped(
          Effect.forever(Effect.flatMap(Queue.take(notices), handle)).pipe(Effect.catchTag("Done", () => Effect.void))
        )
      })
    ) as Layer.Layer<never, never, SimulatedProvider | Exclude<R, Scope.Scope>>
  }
}
