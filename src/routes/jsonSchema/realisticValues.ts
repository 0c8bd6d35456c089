/**
 * The table of realistic values: what a field gets from its name (`email`, `homepage`,
 * `createdAt`, `firstName`, `country`, ...) or its string `format`, the way users expect from a
 * faker-backed mock. It lives here, in the project, rather than in a faker dependency whose
 * upgrades would change every generated body: a change to this table changes golden bodies, and
 * is committed as such.
 *
 * Every entry says how it is generated (a list of values, or a pattern) and, for patterns, the
 * shortest and longest string it yields, so that a schema's own length bounds can rule it out.
 */

/** How a realistic string is generated. */
export type StringValues =
  | { readonly _tag: "values"; readonly values: ReadonlyArray<string> }
  | { readonly _tag: "pattern"; readonly pattern: string; readonly minLength: number; readonly maxLength: number }

/** The realistic range of a number field (integers within it). */
export interface NumberRange {
  readonly minimum: number
  readonly maximum: number
}

/** One entry of the table: what strings and numbers of that kind look like. */
export interface RealisticKind {
  readonly string?: StringValues | undefined
  readonly number?: NumberRange | undefined
}

const values = (list: ReadonlyArray<string>): StringValues => ({ _tag: "values", values: list })
const pattern = (source: string, minLength: number, maxLength: number): StringValues => ({
  _tag: "pattern",
  pattern: source,
  minLength,
  maxLength
})

const FIRST_NAMES = [
  "Alice",
  "Amara",
  "Ben",
  "Carlos",
  "Chloe",
  "Daniel",
  "Elena",
  "Emma",
  "Farah",
  "Felix",
  "Grace",
  "Hana",
  "Ivan",
  "Jonas",
  "Julia",
  "Kenji",
  "Laura",
  "Leo",
  "Maya",
  "Mateo",
  "Nadia",
  "Noah",
  "Olivia",
  "Omar",
  "Priya",
  "Rosa",
  "Samuel",
  "Sofia",
  "Tariq",
  "Yuki",
  "Zoe",
  "Liam"
]
const LAST_NAMES = [
  "Adams",
  "Bauer",
  "Chen",
  "Costa",
  "Dubois",
  "Evans",
  "Fischer",
  "Garcia",
  "Hansen",
  "Ito",
  "Jensen",
  "Khan",
  "Kowalski",
  "Larsen",
  "Lopez",
  "Martin",
  "Meyer",
  "Moreau",
  "Nguyen",
  "Novak",
  "Okafor",
  "Patel",
  "Rossi",
  "Santos",
  "Schmidt",
  "Silva",
  "Smith",
  "Tanaka",
  "Walker",
  "Weber",
  "Wright",
  "Young"
]
const alternation = (list: ReadonlyArray<string>) => `(${list.join("|")})`

const DOMAINS = ["example.com", "example.org", "acme.io", "mail.dev"]
const DOMAIN_ALT = alternation(DOMAINS.map((d) => d.replace(/\./g, "\\.")))

/**
 * People as 64 (first, last) pairs spread over both lists: names, e-mail addresses and user
 * names are drawn from lists rather than patterns, since pattern sampling favours short
 * alternatives (every last name would be "Ito") and a list samples faster.
 */
const PEOPLE: ReadonlyArray<readonly [string, string]> = Array.from(
  { length: 64 },
  (_, i) => [FIRST_NAMES[i % FIRST_NAMES.length], LAST_NAMES[(i * 7 + Math.floor(i / 32)) % LAST_NAMES.length]] as const
)

const DATE = "20(2[0-9])-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
const CLOCK = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"

/** Realistic kinds by name. `fields` overrides and the name and format rules below refer to these. */
export const REALISTIC_KINDS: Readonly<Record<string, RealisticKind>> = {
  email: {
    string: values(PEOPLE.map(([first, last], i) => `${first}.${last}@${DOMAINS[i % DOMAINS.length]}`.toLowerCase()))
  },
  url: { string: pattern(`^https://(www|api|app|docs)\\.${DOMAIN_ALT}(/[a-z]{3,8}){0,2}$`, 19, 50) },
  imageUrl: { string: pattern(`^https://images\\.${DOMAIN_ALT}/[a-z0-9]{8}\\.(png|jpg|webp)$`, 36, 48) },
  uuid: {
    string: pattern("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", 36, 36),
    number: { minimum: 1, maximum: 10_000 }
  },
  dateTime: {
    string: pattern(`^${DATE}T${CLOCK}(\\.[0-9]{3})?Z$`, 20, 24),
    number: { minimum: 1_577_836_800, maximum: 1_893_456_000 }
  },
  date: { string: pattern(`^${DATE}$`, 10, 10) },
  time: { string: pattern(`^${CLOCK}$`, 8, 8) },
  path: { string: pattern("^/[a-z0-9]{1,8}(/[a-z0-9]{1,8}){0,2}$", 2, 27) },
  firstName: { string: values(FIRST_NAMES) },
  lastName: { string: values(LAST_NAMES) },
  fullName: { string: values(PEOPLE.map(([first, last]) => `${first} ${last}`)) },
  username: {
    string: values(
      PEOPLE.map(([first, last], i) => `${first}${["_", ".", ""][i % 3]}${last}${i % 4 === 0 ? i : ""}`.toLowerCase())
    )
  },
  company: {
    string: values([
      "Acme Corp",
      "Globex",
      "Initech",
      "Umbrella Labs",
      "Hooli",
      "Stark Industries",
      "Wayne Enterprises",
      "Northwind Traders",
      "Contoso",
      "Fabrikam",
      "Tyrell Systems",
      "Cyberdyne",
      "Vandelay Industries",
      "Soylent Co",
      "Wonka Foods",
      "Aperture Science"
    ])
  },
  phone: { string: pattern("^\\+1-(202|312|415|617|718)-555-01[0-9]{2}$", 15, 15) },
  country: {
    string: values([
      "United States",
      "Germany",
      "France",
      "Japan",
      "Brazil",
      "Canada",
      "India",
      "Nigeria",
      "Australia",
      "Spain",
      "Italy",
      "Mexico",
      "Kenya",
      "Sweden",
      "Norway",
      "South Korea"
    ])
  },
  countryCode: {
    string: values(["US", "DE", "FR", "JP", "BR", "CA", "IN", "NG", "AU", "ES", "IT", "MX", "KE", "SE", "NO", "KR"])
  },
  currency: { string: values(["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "BRL", "INR", "SEK", "NOK", "KRW"]) },
  city: {
    string: values([
      "Berlin",
      "Paris",
      "Tokyo",
      "São Paulo",
      "Toronto",
      "Mumbai",
      "Lagos",
      "Sydney",
      "Madrid",
      "Rome",
      "Mexico City",
      "Nairobi",
      "Stockholm",
      "Oslo",
      "Seoul",
      "Chicago"
    ])
  },
  street: {
    string: pattern("^[1-9][0-9]{0,3} (Main|Oak|Maple|Cedar|Park|Elm|Lake|Hill) (Street|Avenue|Road|Lane)$", 11, 22)
  },
  postalCode: { string: pattern("^[0-9]{5}$", 5, 5) },
  ipv4: { string: pattern("^(10|172|192)\\.(0|1|16|168)\\.[0-9]{1,2}\\.[1-9][0-9]?$", 8, 14) },
  ipv6: { string: pattern("^fd[0-9a-f]{2}(:[0-9a-f]{1,4}){7}$", 18, 39) },
  hostname: { string: pattern(`^(api|app|www|cdn|mail|db)[0-9]?\\.${DOMAIN_ALT}$`, 11, 16) },
  semver: { string: pattern("^[0-9]\\.[0-9]{1,2}\\.[0-9]{1,2}$", 5, 7) },
  locale: { string: values(["en-US", "en-GB", "de-DE", "fr-FR", "ja-JP", "pt-BR", "es-ES", "it-IT"]) },
  language: { string: values(["en", "de", "fr", "ja", "pt", "es", "it", "ko"]) },
  timezone: {
    string: values([
      "UTC",
      "Europe/Berlin",
      "Europe/Paris",
      "America/New_York",
      "America/Los_Angeles",
      "Asia/Tokyo",
      "Australia/Sydney",
      "America/Sao_Paulo"
    ])
  },
  color: { string: pattern("^#[0-9a-f]{6}$", 7, 7) },
  mimeType: {
    string: values(["application/json", "text/plain", "text/html", "image/png", "image/jpeg", "application/pdf"])
  },
  sha: { string: pattern("^[0-9a-f]{40}$", 40, 40) },
  token: { string: pattern("^[A-Za-z0-9]{32}$", 32, 32) },
  slug: {
    string: pattern(
      "^(blue|quick|silent|bright|happy|brave)-(river|falcon|garden|harbor|meadow|summit)(-[0-9]{1,3})?$",
      9,
      19
    )
  },
  sentence: {
    string: values([
      "A short description of this item.",
      "Updated after the last review.",
      "Ready for production use.",
      "Works well in most cases.",
      "Needs a follow-up next week.",
      "Imported from the previous system.",
      "Shared with the whole team.",
      "Created for the quarterly report."
    ])
  },
  title: {
    string: values([
      "Quarterly report",
      "Welcome guide",
      "Release notes",
      "Team offsite",
      "Product launch",
      "Weekly sync",
      "Onboarding checklist",
      "Design review"
    ])
  },
  age: { number: { minimum: 18, maximum: 90 } },
  price: { number: { minimum: 1, maximum: 500 } },
  quantity: { number: { minimum: 0, maximum: 100 } },
  year: { number: { minimum: 1990, maximum: 2030 } },
  port: { number: { minimum: 1024, maximum: 65_535 } },
  rating: { number: { minimum: 1, maximum: 5 } },
  percent: { number: { minimum: 0, maximum: 100 } },
  latitude: { number: { minimum: -90, maximum: 90 } },
  longitude: { number: { minimum: -180, maximum: 180 } }
}

/** The kind a string `format` asks for (JSON Schema's and OpenAPI's common formats). */
export const FORMAT_KINDS: Readonly<Record<string, string>> = {
  email: "email",
  "idn-email": "email",
  uri: "url",
  url: "url",
  iri: "url",
  "uri-reference": "path",
  uuid: "uuid",
  "date-time": "dateTime",
  date: "date",
  time: "time",
  hostname: "hostname",
  "idn-hostname": "hostname",
  ipv4: "ipv4",
  ipv6: "ipv6",
  semver: "semver",
  phone: "phone",
  country: "countryCode",
  currency: "currency"
}

/** A field name as lower-case words: `createdAt`, `created_at` and `Created-At` → `["created", "at"]`. */
export const nameTokens = (name: string): ReadonlyArray<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== "")

/**
 * Name rules, first match wins: `[kind, test]` where the test sees the name's tokens and their
 * concatenation.
 */
const NAME_RULES: ReadonlyArray<readonly [string, (tokens: ReadonlyArray<string>, joined: string) => boolean]> = [
  ["email", (t) => t.includes("email") || t.at(-1) === "mail"],
  [
    "imageUrl",
    (t, j) =>
      /^(avatar|image|photo|picture|thumbnail|logo|icon)(url|uri)?$/.test(j) ||
      (["avatar", "image", "photo", "logo", "icon"].includes(t[0]) && ["url", "uri"].includes(t.at(-1)!))
  ],
  [
    "url",
    (t, j) =>
      ["url", "uri", "href", "link", "homepage", "website"].includes(t.at(-1)!) || j === "homepage" || j === "website"
  ],
  ["uuid", (t) => ["id", "uuid", "guid"].includes(t.at(-1)!)],
  [
    "dateTime",
    (t, j) =>
      (t.length > 1 && t.at(-1) === "at") ||
      [
        "timestamp",
        "datetime",
        "created",
        "updated",
        "modified",
        "lastmodified",
        "lastupdated",
        "expires",
        "expiry"
      ].includes(j)
  ],
  ["date", (t, j) => t.at(-1) === "date" || ["birthday", "dob", "birthdate", "dateofbirth"].includes(j)],
  ["firstName", (_, j) => ["firstname", "givenname", "forename"].includes(j)],
  ["lastName", (_, j) => ["lastname", "surname", "familyname"].includes(j)],
  ["username", (_, j) => ["username", "login", "handle", "nickname", "screenname"].includes(j)],
  [
    "fullName",
    (_, j) => ["name", "fullname", "displayname", "author", "contactname", "customername", "ownername"].includes(j)
  ],
  ["company", (_, j) => ["company", "companyname", "organization", "organisation", "employer"].includes(j)],
  ["phone", (t) => ["phone", "telephone", "mobile", "tel", "fax"].includes(t.at(-1)!) || t.includes("phone")],
  ["countryCode", (_, j) => ["countrycode", "countryiso", "iso2"].includes(j)],
  ["country", (_, j) => j === "country" || j === "countryname"],
  ["currency", (_, j) => j === "currency" || j === "currencycode"],
  ["city", (_, j) => j === "city" || j === "town"],
  ["street", (_, j) => ["street", "streetaddress", "address", "address1", "addressline1", "line1"].includes(j)],
  ["postalCode", (_, j) => ["zip", "zipcode", "postalcode", "postcode"].includes(j)],
  ["ipv4", (_, j) => ["ip", "ipv4", "ipaddress", "remoteip", "clientip"].includes(j)],
  ["ipv6", (_, j) => j === "ipv6"],
  ["hostname", (_, j) => ["hostname", "host", "domain", "domainname"].includes(j)],
  ["semver", (_, j) => ["version", "semver", "appversion"].includes(j)],
  ["locale", (_, j) => j === "locale"],
  ["language", (_, j) => ["language", "lang"].includes(j)],
  ["timezone", (_, j) => ["timezone", "tz", "timezoneid"].includes(j)],
  ["color", (_, j) => j === "color" || j === "colour"],
  ["mimeType", (_, j) => ["mimetype", "mediatype"].includes(j)],
  ["sha", (_, j) => ["sha", "commit", "checksum", "etag", "hash"].includes(j)],
  ["token", (t) => ["token", "secret"].includes(t.at(-1)!) || t.join("") === "apikey"],
  ["slug", (_, j) => j === "slug"],
  ["title", (_, j) => j === "title" || j === "subject"],
  ["sentence", (_, j) => ["description", "summary", "bio", "comment", "message", "note", "notes", "about"].includes(j)],
  ["age", (_, j) => j === "age"],
  ["price", (t) => ["price", "amount", "cost", "total", "balance", "fee"].includes(t.at(-1)!)],
  ["quantity", (t) => ["quantity", "qty", "count"].includes(t.at(-1)!)],
  ["year", (_, j) => j === "year"],
  ["port", (_, j) => j === "port"],
  ["rating", (_, j) => j === "rating" || j === "stars"],
  ["percent", (t) => ["percent", "percentage"].includes(t.at(-1)!)],
  ["latitude", (_, j) => j === "lat" || j === "latitude"],
  ["longitude", (_, j) => ["lng", "lon", "long", "longitude"].includes(j)]
]

const ruleFor = (tokens: ReadonlyArray<string>): string | undefined => {
  const joined = tokens.join("")
  return NAME_RULES.find(([, test]) => test(tokens, joined))?.[0]
}

/**
 * The realistic kind a field's name suggests, if any; a plural name (an array of e-mails,
 * `photoUrls`) is read as its singular when the plural itself suggests nothing.
 */
export const kindOfName = (name: string): string | undefined => {
  const tokens = nameTokens(name)
  if (tokens.length === 0) return undefined
  const last = tokens[tokens.length - 1]
  return (
    ruleFor(tokens) ??
    (last.length > 3 && last.endsWith("s") && !last.endsWith("ss")
      ? ruleFor([...tokens.slice(0, -1), last.slice(0, -1)])
      : undefined)
  )
}
