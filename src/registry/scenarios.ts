/**
 * Scenarios, as WireMock has them: a named state machine that routes consult when matching. Every
 * scenario starts in `"Started"`. A route naming a scenario with a `requiredState` matches only
 * while the scenario is in that state; a route with a `newState` moves the scenario there when it
 * takes a request. The registry gives each route a reference to its scenario's one cell, so the
 * check costs a property read and a lookup stays indexed: a route whose state is not current is
 * passed over in its index list, as an exhausted one is.
 *
 * Order: a move happens when the route is chosen for a request, in dispatch order, before the
 * next request is dispatched; the request that moves a scenario is answered as the state it found
 * decided (its route), even when its answer comes later (a `delay`, a slow handler). So the same
 * requests in the same order move the same scenarios the same way, however the answers interleave.
 */
import { InvalidRouteSpec } from "../SimnetError.ts"

/** The state every scenario starts in. */
export const STARTED = "Started"

/**
 * What a route says of its scenario (`RouteOptions.scenario`, `requiredState`, `newState`).
 */
export interface ScenarioOptions {
  readonly name: string
  readonly requiredState?: string | undefined
  readonly newState?: string | undefined
}

/** One scenario's state, shared by every route that names it. */
export class ScenarioCell {
  readonly name: string
  state: string = STARTED
  /** The states its routes name (and `Started`), for the listing. */
  readonly states = new Set<string>([STARTED])

  constructor(name: string) {
    this.name = name
  }
}

/**
 * What a request's log record says of the scenario of the route that took it: its name, the state
 * the request found, and the state the route moved it to.
 */
export interface ScenarioStep {
  readonly name: string
  readonly state: string
  readonly newState?: string | undefined
}

/** A scenario as `GET scenarios` and `network.scenarios` list it. */
export interface ScenarioInfo {
  readonly name: string
  readonly state: string
  /** Every state its routes name, `Started` first. */
  readonly states: ReadonlyArray<string>
}

/** A registered route's hold on its scenario: the cell, and what the route requires and sets. */
export class ScenarioUse {
  readonly cell: ScenarioCell
  readonly requiredState: string | undefined
  readonly newState: string | undefined

  constructor(cell: ScenarioCell, options: ScenarioOptions) {
    this.cell = cell
    this.requiredState = options.requiredState
    this.newState = options.newState
  }

  /** Whether the route may take a request now. */
  admits(): boolean {
    return this.requiredState === undefined || this.cell.state === this.requiredState
  }

  /** Takes a request: what it found, and the move when the route makes one. */
  pass(): ScenarioStep {
    const state = this.cell.state
    if (this.newState === undefined) return { name: this.cell.name, state }
    this.cell.state = this.newState
    return { name: this.cell.name, state, newState: this.newState }
  }

  /** Why the route did not take a request it otherwise matches. */
  refusal(): string {
    return `scenario "${this.cell.name}" is in state "${this.cell.state}"; this route needs "${this.requiredState}"`
  }
}

/**
 * A network's scenarios, by name. A scenario exists from the first registration of a route that
 * names it until the routes are cleared (`reset`, a restore, `close`).
 */
export class Scenarios {
  private readonly cells = new Map<string, ScenarioCell>()

  /** The hold of a route on its scenario (made on first use), or undefined for a route with none. */
  use(options: ScenarioOptions | undefined): ScenarioUse | undefined {
    if (options === undefined) return undefined
    let cell = this.cells.get(options.name)
    if (cell === undefined) this.cells.set(options.name, (cell = new ScenarioCell(options.name)))
    if (options.requiredState !== undefined) cell.states.add(options.requiredState)
    if (options.newState !== undefined) cell.states.add(options.newState)
    return new ScenarioUse(cell, options)
  }

  /** Every scenario, in the order its first route was registered. */
  list(): ReadonlyArray<ScenarioInfo> {
    return Array.from(this.cells.values(), (cell) => ({ name: cell.name, state: cell.state, states: [...cell.states] }))
  }

  /** Every scenario back to `Started`. */
  reset(): void {
    for (const cell of this.cells.values()) cell.state = STARTED
  }

  /** Moves a scenario to `state` (any state: a test may set one no route names); false when there is no such scenario. */
  set(name: string, state: string): boolean {
    const cell = this.cells.get(name)
    if (cell === undefined) return false
    cell.state = state
    cell.states.add(state)
    return true
  }

  /** Each scenario's state, for a snapshot. */
  states(): Record<string, string> {
    return Object.fromEntries(Array.from(this.cells.values(), (cell) => [cell.name, cell.state]))
  }

  /** Sets the states a snapshot holds, of the scenarios there are (a name no route names is ignored). */
  restore(states: Readonly<Record<string, string>>): void {
    for (const [name, state] of Object.entries(states)) this.set(name, state)
  }

  /** Forgets every scenario (the routes that named them are gone). */
  clear(): void {
    this.cells.clear()
  }
}

/**
 * The first problem with a route's scenario options: a state without a scenario to hold it.
 */
export const scenarioProblem = (options: {
  readonly scenario?: unknown
  readonly requiredState?: unknown
  readonly newState?: unknown
}): InvalidRouteSpec | undefined => {
  if (options.scenario !== undefined) return undefined
  const field =
    options.requiredState !== undefined ? "requiredState" : options.newState !== undefined ? "newState" : undefined
  return field === undefined
    ? undefined
    : new InvalidRouteSpec({ path: field, message: `${field} needs a scenario: name it with scenario` })
}
