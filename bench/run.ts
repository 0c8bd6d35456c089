/**
 * Runs the benchmarks: `npm run bench` runs them all; `npm run bench -- core` (or `generate`,
 * `llm`) runs one. `--quick` shortens every measurement. Node runs with `--expose-gc` so heap
 * figures are taken after a full collection.
 */
const all = ["core", "generate", "llm"]
const chosen = process.argv.slice(2).filter((a) => !a.startsWith("--"))
for (const name of chosen.length === 0 ? all : chosen) {
  const module = (await import(`./${name}.bench.ts`)) as { run: () => Promise<void> }
  await module.run()
}
