/**
 * The provider's driver and the invocations it feeds. A request that no script or rule takes
 * opens an invocation when a driver is attached, when the provider holds such requests for a
 * driver still to come (`drive: true`), or when a `drive` rule asks for one; the driver is told
 * (`llm.request`) and answers it with `chunk`, `finish`, `fail` or `disconnect`.
 *
 * One driver at a time: the last attach wins. The replaced driver's queue of notices ends
 * (`Cause.Done`), and the new driver is first told of every invocation already pending, so a late
 * or replacing driver misses nothing.
 */
import { type Cause, Effect, Queue } from "effect"
import type { Schema, Scope } from "effect"
import { ChunkCommand, DisconnectCommand, FailCommand, FinishCommand } from "../../schemas/driver.ts"
import { type InvalidLlmInput, InvocationNotPending } from "../../SimnetError.ts"
import type { LlmApi, LlmRequest } from "./conversation.ts"
import { DrivenInvocation } from "./invocation.ts"
import type { DriverMethod } from "./options.ts"
import { decodeInput } from "./validate.ts"

/**
 * A pending invocation as `pending` lists it (and `llm.pending` sends it).
 */
export interface PendingInvocation {
  readonly id: string
  /** The API the request came through, so a driver knows which wire format `body` is in. */
  readonly api: LlmApi
  readonly url: string
  readonly model: string
  readonly stream: boolean
  /** Whether the response has started. */
  readonly started: boolean
  readonly body: unknown
}

/**
 * What an attached driver is told when a request opens an invocation for it (`llm.request`).
 */
export interface LlmInvocationNotice {
  readonly id: string
  /** The API the request came through, so a driver knows which wire format `body` is in. */
  readonly api: LlmApi
  readonly url: string
  readonly body: unknown
}

/**
 * The notices of one attached driver. It ends with `Cause.Done` when a later attach replaces
 * the driver.
 */
export type DriverNotices = Queue.Dequeue<LlmInvocationNotice, Cause.Done>

const noticeOf = (invocation: DrivenInvocation): LlmInvocationNotice => ({
  id: invocation.id,
  api: invocation.request.api,
  url: invocation.request.url,
  body: invocation.request.raw
})

/**
 * The attached driver and the pending invocations.
 */
export class Drivers {
  readonly #pending = new Map<string, DrivenInvocation>()
  readonly #hold: boolean
  #current: Queue.Queue<LlmInvocationNotice, Cause.Done> | undefined

  /** `hold`: requests no script or rule takes wait for a driver even while none is attached. */
  constructor(hold: boolean) {
    this.#hold = hold
  }

  /** Whether a driver is attached. */
  get attached(): boolean {
    return this.#current !== undefined
  }

  /** Whether `notices` (what an `attach` returned) belong to the driver attached now. */
  isCurrent(notices: DriverNotices): boolean {
    return this.#current !== undefined && this.#current === notices
  }

  /** Whether a request no script or rule takes waits for a driver (one is attached, or the provider holds). */
  get waiting(): boolean {
    return this.#current !== undefined || this.#hold
  }

  /** The invocations waiting for a driver or being fed by one. */
  pending(): ReadonlyArray<PendingInvocation> {
    return Array.from(this.#pending.values(), (invocation) => ({
      id: invocation.id,
      api: invocation.request.api,
      url: invocation.request.url,
      model: invocation.request.model,
      stream: invocation.request.stream,
      started: invocation.started,
      body: invocation.request.raw
    }))
  }

  /** Opens the invocation of request `seq` and tells the attached driver. */
  open(seq: number, request: LlmRequest, viaAttach: boolean): DrivenInvocation {
    const invocation = new DrivenInvocation(seq, request, viaAttach, () => {
      this.#pending.delete(`inv_${seq}`)
    })
    this.#pending.set(invocation.id, invocation)
    if (this.#current !== undefined) Queue.offerUnsafe(this.#current, noticeOf(invocation))
    return invocation
  }

  /** The open invocation `id`, or `InvocationNotPending`. */
  invocation(id: string): Effect.Effect<DrivenInvocation, InvocationNotPending> {
    return Effect.suspend(() => {
      const invocation = this.#pending.get(id)
      return invocation === undefined || invocation.closed
        ? Effect.fail(new InvocationNotPending({ id }))
        : Effect.succeed(invocation)
    })
  }

  /**
   * One driver command on an invocation: `params` decoded with the method's Schema
   * (`InvalidLlmInput` naming the field), then the invocation looked up (`InvocationNotPending`).
   * A refused command changes nothing.
   */
  command(method: DriverMethod, params: unknown): Effect.Effect<void, InvocationNotPending | InvalidLlmInput> {
    const run = <A extends { readonly id: string }>(
      schema: Schema.Codec<A, unknown>,
      act: (invocation: DrivenInvocation, command: A) => void
    ) =>
      Effect.flatMap(Effect.fromResult(decodeInput(schema, params, "driver command", "")), (command) =>
        Effect.map(this.invocation(command.id), (invocation) => act(invocation, command))
      )
    return Effect.suspend(() => {
      switch (method) {
        case "llm.chunk":
          return run(ChunkCommand, (invocation, command) => invocation.chunk(command.items))
        case "llm.finish":
          return run(FinishCommand, (invocation, command) =>
            invocation.finish(
              command.reason,
              command.usage === undefined
                ? undefined
                : {
                    inputTokens: command.usage.prompt_tokens,
                    outputTokens: command.usage.completion_tokens,
                    totalTokens: command.usage.total_tokens
                  }
            )
          )
        case "llm.fail":
          return run(FailCommand, (invocation, command) =>
            invocation.fail(
              command.status,
              command.message ?? `The model failed with status ${command.status} (simulated).`
            )
          )
        case "llm.disconnect":
          return run(DisconnectCommand, (invocation) => invocation.disconnect())
      }
    })
  }

  /**
   * Attaches a driver for the life of the scope; the last attach wins. The queue starts with a
   * notice for every invocation already pending, and ends (`Cause.Done`) if a later attach
   * replaces this driver. When the driver still attached leaves, the invocations opened for
   * drivers are disconnected; a replaced driver leaving changes nothing.
   */
  get attach(): Effect.Effect<DriverNotices, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.tap(Queue.unbounded<LlmInvocationNotice, Cause.Done>(), (queue) =>
        Effect.sync(() => {
          const replaced = this.#current
          this.#current = queue
          if (replaced !== undefined) Queue.endUnsafe(replaced)
          for (const invocation of this.#pending.values()) Queue.offerUnsafe(queue, noticeOf(invocation))
        })
      ),
      (queue) =>
        Effect.andThen(
          Effect.sync(() => {
            if (this.#current !== queue) return
            this.#current = undefined
            for (const invocation of Array.from(this.#pending.values())) {
              if (invocation.viaAttach) invocation.disconnect()
            }
          }),
          Queue.shutdown(queue)
        )
    )
  }

  /** Disconnects every pending invocation. */
  disconnectAll(): void {
    for (const invocation of Array.from(this.#pending.values())) invocation.disconnect()
  }
}
