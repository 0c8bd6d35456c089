/**
 * The shapes the inspector page's script reads from the server, named from the server's own types
 * (so a change there that the page does not follow fails `npm run typecheck`), and the few it
 * keeps itself. The page's scripts (`*.js` beside this file) share one global scope: the server
 * joins them, in `page.ts`'s order, into the one inline script its CSP hash allows.
 */
type Row = import("../feed.ts").Row
type Extra = import("../feed.ts").Extra
type LogRecord = import("../feed.ts").LogRecord
type PanelsView = import("../state.ts").PanelsView
type RouteRow = PanelsView["routes"][number]
type McpServerRow = PanelsView["mcp"][number]
type PendingRow = import("../../../models/provider/drivers.ts").PendingInvocation
type KeptAnswer = import("../../inspector.ts").KeptAnswer
type FailingCase = import("../../inspector.ts").FailingCase
type Frame = NonNullable<FailingCase["frames"]>[number]
type StyledRun = import("../../../terminal/terminal.ts").StyledRun

/** An error body of the control endpoint: `{ error: { tag, path?, message } }`. */
interface ErrorBody {
  readonly error?: { readonly tag: string; readonly path?: string; readonly message: string }
}

/** A control endpoint answer as `api` reads it. */
interface ApiAnswer {
  readonly ok: boolean
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: the page's plain JS reads each endpoint's own answer; the server's code types it.
  readonly json: any
}

/** A candidate route of a refusal, as the refusal's body lists it. */
interface Candidate {
  readonly id: string
  readonly match: string
  readonly reason: string
  readonly detail?: string
}

/** A JSON-RPC error or any failure the driver console shows. */
interface ConsoleFailure {
  readonly message?: string
  readonly data?: { readonly path?: string }
}

/** A driver call waiting for its reply. */
interface PendingCall {
  // biome-ignore lint/suspicious/noExplicitAny: a driver method's result, read by the page's plain JS as that method answers.
  readonly resolve: (value: any) => void
  readonly reject: (error: ConsoleFailure) => void
}

/** Attributes for `el`: `text` sets the text, `class` the class, `onX` a listener, the rest attributes. */
type Attributes = Readonly<Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>>

/** What `el` appends: nodes, text, nothing, or lists of them. */
type Child = Node | string | null | undefined | false | ReadonlyArray<Node | string | null | undefined | false>
