/**
 * Hostile values for `simnet/testing`'s arbitraries: what a model, a server or a user sends that
 * the program under test did not expect. Strings that climb out of a directory or name an absolute
 * one, empty and very long ones, control characters and terminal escapes, odd Unicode, format
 * strings and injection shapes; numbers at their boundaries; arrays and objects empty or large.
 *
 * They come with a weight (`withHostile`: ordinary values still dominate), and for a tool's
 * arguments (`hostileVariant`) each hostile value replaces one ordinary value only when the whole
 * still satisfies the tool's input schema, judged by Ajv with its formats (`schemaJudge`): a
 * `maxLength`, an `enum`, a `pattern` or a `format` holds whatever is drawn. Every choice is
 * fast-check's, so a draw is a function of fast-check's seed, and a failing case shrinks towards
 * ordinary values, leaving hostile only the ones that break the program.
 */
import fc from "fast-check"
import { linearAjvEngine } from "../registry/linearRegExp.ts"
import { ajv2020, ajvDraft07, ajvFormats } from "../routes/jsonSchema/ajv.ts"
import { dialectOf } from "../routes/jsonSchema/jsonSchemaDocument.ts"
import { isJsonObject } from "../registry/util.ts"

/**
 * The default weight of hostile values: each string, number, array or object an arbitrary draws
 * is hostile with this probability (when the schema lets it be).
 */
export const DEFAULT_HOSTILE = 0.2

/** Hostile strings, by what they break. None is a plain lower-case word, which ordinary text is. */
export const HOSTILE_STRINGS = {
  /** Paths that climb out, name an absolute place, a home, a trailing slash, another system's form. */
  paths: [
    "../../../../../../etc/passwd",
    "..",
    "../",
    "../..",
    "../secret.txt",
    "a/../../b",
    "./../outside",
    "notes/../../../x",
    "/",
    "/etc/passwd",
    "/tmp/",
    "/root/.ssh/id_rsa",
    "//server/share",
    "/dev/null",
    "/proc/self/environ",
    "~",
    "~/",
    "~/.ssh/id_rsa",
    "~root/x",
    "dir/",
    "dir//file",
    "./",
    ".",
    "...",
    "notes.txt/",
    ".env",
    ".git/config",
    "-rf",
    "--help",
    "..\\..\\windows\\win.ini",
    "C:\\Windows\\System32\\drivers\\etc\\hosts",
    "\\\\?\\C:\\x",
    "file:///etc/passwd",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "..%2f..%2fsecret",
    "notes.txt\u0000.png",
    " notes.txt ",
    "name with spaces.txt"
  ],
  /** Empty, and nothing but white space. */
  empty: ["", " ", "\t", "\n", "   \r\n  "],
  /** Very long: tens of thousands of characters, in one or several code units each. */
  long: [
    "A".repeat(10_000),
    "../".repeat(2_000),
    "\u{1F642}".repeat(5_000),
    "X".repeat(65_536),
    "line\n".repeat(4_000)
  ],
  /** NUL, terminal escape sequences (clear, colour, title, hyperlink, CSI in one byte), CR/LF, backspaces, DEL. */
  control: [
    "\u0000",
    "a\u0000b",
    "\u001b[2J\u001b[H",
    "\u001b[31mred\u001b[0m",
    "\u001b]0;pwned\u0007",
    "\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007",
    "\u001b[6n",
    "line1\r\nline2",
    "\roverwritten",
    "tab\there",
    "abc\b\b\bxyz",
    "\u007f",
    "\u0085\u2028\u2029",
    "\u009b31m"
  ],
  /** Wide and CJK, combining marks, emoji with ZWJ, right-to-left marks, BOM, zero-width, lone surrogates. */
  unicode: [
    "\u6587\u4ef6\u540d\u79f0\u6d4b\u8bd5",
    "\uff46\uff55\uff4c\uff4c\uff0f\uff50\uff41\uff54\uff48",
    "e\u0301\u0301\u0301\u0301",
    "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f",
    "\u{1F469}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466}",
    "\u{1F3F3}\ufe0f\u200d\u{1F308}",
    "\u202etxt.exe",
    "\u200f\u05e9\u05dc\u05d5\u05dd",
    "\u0627\u0644\u0633\u0644\u0627\u0645",
    "\ufeffbom",
    "zero\u200bwidth",
    "\ud800",
    "\udfff",
    "a\ud83dz",
    "\ufffd",
    "\u{10ffff}",
    "\u0130stanbul",
    "\u00df",
    "\ufb03"
  ],
  /** Format strings of C, .NET, shells and template engines. */
  format: [
    "%s",
    "%s%s%s%s%n",
    "%x %d %p",
    "{0}",
    "{}",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile string as text, not a template.
    "${x}",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile string as text, not a template.
    "${process.env.HOME}",
    "{{7*7}}",
    "#{7*7}",
    "%(name)s",
    "$HOME",
    "%PATH%",
    "$(whoami)"
  ],
  /** Quotes and the shapes of SQL, shell, HTML and JSON injection; words that coerce. */
  injection: [
    "'",
    '"',
    "`",
    "' OR '1'='1",
    '"; DROP TABLE users; --',
    "'; rm -rf / #",
    "`id`",
    "| cat /etc/passwd",
    "&& echo pwned",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "<!--",
    "]]>",
    "\\",
    '\\"',
    '{"json": true}',
    "__proto__",
    "constructor",
    "NaN",
    "None",
    "NULL",
    "-1",
    "0",
    "1e309"
  ]
} as const satisfies Readonly<Record<string, ReadonlyArray<string>>>

/** Numbers at the boundaries programs get wrong. NaN and the infinities have no JSON form, so no JSON Schema admits them. */
export const HOSTILE_NUMBERS: ReadonlyArray<number> = [
  0,
  -1,
  1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  0.5,
  -0.5,
  Number.EPSILON,
  Number.MIN_VALUE,
  1e308,
  -1e308
]

/** Keys of a large object: the prototype's names, empty, a path, an escape, a very long one. */
const HOSTILE_KEYS: ReadonlyArray<string> = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "",
  " ",
  "../escape",
  "/etc/passwd",
  "a.b",
  "a[0]",
  "$ref",
  "\u{1F642}",
  "\u0000",
  "\u001b[2J",
  "k".repeat(1_000)
]
/** How many keys a large object has, and the most elements (and JSON characters) a large array has. */
const LARGE_OBJECT = 256
const LARGE_ARRAY = 1_000
const LARGE_ARRAY_CHARS = 256 * 1024

/** The names of fields that hold a path, whose hostile strings are paths more often than not. */
const PATH_LIKE = /path|file|dir|folder|cwd|root|dest|src|source|target|location|home|url|uri/i

const strings = (list: ReadonlyArray<string>) => fc.constantFrom(...list)
const PATHS = strings(HOSTILE_STRINGS.paths)
const OTHERS = Object.entries(HOSTILE_STRINGS)
  .filter(([kind]) => kind !== "paths")
  .map(([, list]) => strings(list))

/**
 * Hostile strings of every kind, each kind as likely; for a field whose name says it holds a path
 * (`key`: `path`, `filePath`, `dir`, `url`, ...), paths two times in three.
 */
export const hostileString = (key?: string): fc.Arbitrary<string> =>
  key !== undefined && PATH_LIKE.test(key)
    ? fc.oneof(
        { weight: 2 * OTHERS.length, arbitrary: PATHS },
        ...OTHERS.map((arbitrary) => ({ weight: 1, arbitrary }))
      )
    : fc.oneof(PATHS, ...OTHERS)

/** Weights are whole numbers to fast-check: a weight of 0.2 is 200 in 1000. */
const SCALE = 1_000

/**
 * `ordinary`, or with probability `weight` (0 to 1) `hostile`. Shrinking tries the ordinary value
 * first (fast-check's cross shrink), so a failing case keeps a hostile value only when it matters.
 */
export const withHostile = <T>(
  ordinary: fc.Arbitrary<T>,
  hostile: fc.Arbitrary<T>,
  weight: number
): fc.Arbitrary<T> => {
  const bad = Math.round(weight * SCALE)
  if (bad <= 0) return ordinary
  if (bad >= SCALE) return hostile
  return fc.oneof(
    { withCrossShrink: true },
    { weight: SCALE - bad, arbitrary: ordinary },
    { weight: bad, arbitrary: hostile }
  )
}

/**
 * Whether a value satisfies a JSON Schema document, as Ajv judges it in the document's own
 * dialect with its formats; patterns run on RE2 (the document's patterns were checked to compile
 * there), so a very long hostile string meets no backtracking.
 */
export const schemaJudge = (document: Readonly<Record<string, unknown>>): ((value: unknown) => boolean) => {
  const Ajv = dialectOf(document) === "draft-07" ? ajvDraft07() : ajv2020()
  const ajv = new Ajv({
    strict: false,
    logger: false,
    validateSchema: false,
    code: { regExp: linearAjvEngine as never }
  })
  ;(ajvFormats() as unknown as (ajv: InstanceType<typeof Ajv>) => void)(ajv)
  const validate = ajv.compile(document)
  return (value) => validate(value) === true
}

/** One place in a value a hostile value may take: its path, what it holds, and the name of the field it is. */
interface Slot {
  readonly path: ReadonlyArray<string | number>
  readonly kind: "string" | "number" | "array" | "object"
  readonly key: string | undefined
}

/** The most places of one value that may turn hostile (a tool's arguments have a few). */
const MAX_SLOTS = 64

/** The places of a value, children before their parent, at most `MAX_SLOTS` of them (an explicit stack: no recursion). */
const slotsOf = (value: unknown): Array<Slot> => {
  const slots: Array<Slot> = []
  const stack: Array<{
    readonly value: unknown
    readonly path: ReadonlyArray<string | number>
    readonly key: string | undefined
    expanded: boolean
  }> = [{ value, path: [], key: undefined, expanded: false }]
  while (stack.length > 0 && slots.length < MAX_SLOTS) {
    const top = stack[stack.length - 1]
    const node = top.value
    const container = Array.isArray(node) ? "array" : isJsonObject(node) ? "object" : undefined
    if (container !== undefined && !top.expanded) {
      top.expanded = true
      const entries: Array<readonly [string | number, unknown]> = Array.isArray(node)
        ? node.map((item, i) => [i, item] as const)
        : Object.entries(node as Record<string, unknown>)
      for (const [at, child] of entries.reverse())
        stack.push({
          value: child,
          path: [...top.path, at],
          key: typeof at === "string" ? at : top.key,
          expanded: false
        })
      continue
    }
    stack.pop()
    const kind = container ?? (typeof node === "string" ? "string" : typeof node === "number" ? "number" : undefined)
    if (kind !== undefined) slots.push({ path: top.path, kind, key: top.key })
  }
  return slots
}

/** A hostile choice for one place: a string or number to put there, or what to make of an array or object. */
type Choice = { readonly put: string | number } | { readonly make: "empty" | "large" }

const choiceFor = (slot: Slot): fc.Arbitrary<Choice> => {
  switch (slot.kind) {
    case "string":
      return hostileString(slot.key).map((put) => ({ put }))
    case "number":
      return fc.constantFrom(...HOSTILE_NUMBERS).map((put) => ({ put }))
    default:
      return fc.constantFrom("empty" as const, "large" as const).map((make) => ({ make }))
  }
}

/** An own property, even one named `__proto__` (an assignment would set the prototype instead). */
const put = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A copy of a plain object, its own `__proto__` key kept as a key. */
const copyObject = (source: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(source)) put(out, key, source[key])
  return out
}

/** `root` with `replace(old)` at `path`, copying only the containers on the way. */
const setAt = (root: unknown, path: ReadonlyArray<string | number>, replace: (old: unknown) => unknown): unknown => {
  if (path.length === 0) return replace(root)
  const [head, ...rest] = path
  if (Array.isArray(root) && typeof head === "number") {
    const out = [...root]
    out[head] = setAt(root[head], rest, replace)
    return out
  }
  if (isJsonObject(root) && typeof head === "string") {
    const out = copyObject(root)
    put(out, head, setAt(root[head], rest, replace))
    return out
  }
  return root
}

/** An array or object as the choice makes it: empty, or large (an array's own elements again and again; an object's keys and many more). */
const made = (old: unknown, make: "empty" | "large"): unknown => {
  if (Array.isArray(old)) {
    if (make === "empty" || old.length === 0) return []
    const each = Math.max(1, (JSON.stringify(old)?.length ?? 2) / old.length)
    const length = Math.max(old.length + 1, Math.min(LARGE_ARRAY, Math.floor(LARGE_ARRAY_CHARS / each)))
    return Array.from({ length }, (_, i) => old[i % old.length])
  }
  if (!isJsonObject(old)) return old
  if (make === "empty") return {}
  const out = copyObject(old)
  for (let i = 0; Object.keys(out).length < LARGE_OBJECT; i++)
    put(out, i < HOSTILE_KEYS.length ? HOSTILE_KEYS[i] : `key${i}`, "x")
  return out
}

/**
 * What to try in a place for a choice, in order: the choice itself, then for a string its first
 * half, quarter, … (a `maxLength` then still gets as long, as far up the path, as it allows).
 */
const attempts = (choice: Choice): ReadonlyArray<Choice> => {
  if (!("put" in choice) || typeof choice.put !== "string") return [choice]
  const out: Array<Choice> = [choice]
  for (let length = choice.put.length >> 1; length > 0; length >>= 1) out.push({ put: choice.put.slice(0, length) })
  return out
}

/**
 * Hostile variants of `value` (an ordinary value of a schema): each of its strings, numbers,
 * arrays and objects is, with probability `weight`, replaced by a hostile one, kept only when the
 * whole still satisfies `valid` (the schema), else left as it was; a string too long for the
 * schema is tried again shorter (`attempts`). Children are tried before their parent, so an
 * object made empty or large is judged with what its fields became.
 */
export const hostileVariant = (
  value: unknown,
  weight: number,
  valid: (value: unknown) => boolean
): fc.Arbitrary<unknown> => {
  const slots = slotsOf(value)
  if (slots.length === 0 || Math.round(weight * SCALE) <= 0) return fc.constant(value)
  const none = fc.constant<Choice | undefined>(undefined)
  return fc
    .tuple(...slots.map((slot) => withHostile<Choice | undefined>(none, choiceFor(slot), weight)))
    .map((choices) => {
      let current = value
      choices.forEach((choice, i) => {
        if (choice === undefined) return
        for (const attempt of attempts(choice)) {
          const next = setAt(current, slots[i].path, (old) =>
            "put" in attempt ? attempt.put : made(old, attempt.make)
          )
          if (valid(next)) {
            current = next
            return
          }
        }
      })
      return current
    })
}
