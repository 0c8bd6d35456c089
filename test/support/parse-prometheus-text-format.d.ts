/**
 * The shape `parse-prometheus-text-format` (which ships no types) gives a Prometheus text
 * document: one family per metric name, with its samples; values are strings, as in prom2json.
 */
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly labels?: Readonly<Record<string, string>>
    readonly value?: string
    readonly buckets?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  interface Family {
    readonly name: string
    readonly help: string
    readonly type: string
    readonly metrics: ReadonlyArray<Sample>
  }
  const parse: (text: string) => ReadonlyArray<Family>
  export default parse
}
