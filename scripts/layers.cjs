/**
 * The layers of simnet, bottom first: the folders under `src/`, each importing only the ones
 * before it. Read by `.dependency-cruiser.cjs` (the rules) and `scripts/look.ts` (the picture).
 */
module.exports = ["registry", "schemas", "provider", "routes", "spec", "families", "network", "control", "testing"]
