/**
 * The provider's drivers and the invocations they feed. A request that no script or rule takes
 * opens an invocation when a driver is attached (or a `drive` rule asks for one); the driver is
 * told (`llm.request`) and answers it with `chunk`, `finish`, `fail` or `disconnect`.
 */
import { Effect, Queue } from "effect"
import type { Scope } from "effect"
import { InvocationNotPending } from "../SimnetError.ts"
import type { LlmRequest } from "./conversation.ts"
import { DrivenInvocation } from "./invocation.ts"

/**
 * A pending invocation as `pending` lists it (and `llm.pending` sends it).
 */
export interface PendingInvocation {
  readonly id: string
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
  readonly url: string
  readonly body: unknown
}

/**
 * The attached drivers and the pending invocations.
 */
export class Drivers {
  #pending = new Map<string, DrivenInvocation>()
  #drivers = new Set<Queue.Queue<LlmInvocationNotice>>()

  /** Whether any driver is attached. */
  get attached(): boolean {
    return this.#drivers.size > 0
  }

  /** The invocations waiting for a driver or being fed by one. */
  pending(): ReadonlyArray<PendingInvocation> {
    return Array.from(this.#pending.values(), (invocation) => ({
      id: invocation.id,
      url: invocation.request.url,
      model: invocation.request.model,
      stream: invocation.request.stream,
      started: invocation.started,
      body: invocation.request.raw
    }))
  }

  /** Opens the invocation of request `seq` and tells every attached driver. */
  open(seq: number, request: LlmRequest, viaAttach: boolean): DrivenInvocation {
    const invocation = new DrivenInvocation(seq, request, viaAttach, () => {
      this.#pending.delete(`inv_${seq}`)
    })
    this.#pending.set(invocation.id, invocation)
    const notice: LlmInvocationNotice = { id: invocation.id, url: request.url, body: request.raw }
    for (const driver of this.#drivers) Queue.offerUnsafe(driver, notice)
    return invocation
  }

  /** The open invocation `id`, or `InvocationNotPending`. */
  invocation(id: string): Effect.Effect<DrivenInvocation, InvocationNotPending> {
    return Effect.suspend(() => {
      const invocation = this.#pending.get(id)
      return invocation === undefined || invocation.closed
        ? Effect.fail(new InvocationNotPending({ id, message: `simnet: no pending model invocation ${id}` }))
        : Effect.succeed(invocation)
    })
  }

  /**
   * Attaches a driver for the life of the scope. When the last driver leaves, the invocations
   * opened for drivers are disconnected.
   */
  get attach(): Effect.Effect<Queue.Dequeue<LlmInvocationNotice>, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.tap(Queue.unbounded<LlmInvocationNotice>(), (queue) => Effect.sync(() => this.#drivers.add(queue))),
      (queue) =>
        Effect.flatMap(Queue.shutdown(queue), () =>
          Effect.sync(() => {
            this.#drivers.delete(queue)
            if (this.#drivers.size > 0) return
            for (const invocation of Array.from(this.#pending.values())) {
              if (invocation.viaAttach) invocation.disconnect()
            }
          })
        )
    )
  }

  /** Disconnects every pending invocation. */
  disconnectAll(): void {
    for (const invocation of Array.from(this.#pending.values())) invocation.disconnect()
  }
}
