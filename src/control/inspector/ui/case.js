// @ts-check
// A failing case opened by `simnet show`: a banner with the property, its error, the seed, the
// failing step and the counterexample, first on the page (for a run of `simnet explore`, its
// screens as frames in the Screen tab); the page then reads as the record it
// is: every control that would change the network hidden, "read-only" where "live" would be.

/** @param {FailingCase} failing */
function showCase(failing) {
  document.body.classList.add("read-only")
  $("case-title").textContent = "Failing case: " + failing.name
  const facts = clear($("case-facts"))
  /** @type {ReadonlyArray<readonly [string, string | undefined]>} */
  const pairs = [
    ["Error", failing.error],
    ["Failing step", failing.step],
    ["Seed", String(failing.seed)],
    ["Path", failing.path],
    [
      "Replay",
      failing.replay ??
        "property(…, { seed: " + failing.seed + (failing.path ? ', path: "' + failing.path + '"' : "") + " })"
    ]
  ]
  pairs.forEach((pair) => {
    if (pair[1] === undefined || pair[1] === "") return
    facts.appendChild(el("dt", { text: pair[0] }))
    facts.appendChild(el("dd", { class: pair[0] === "Error" ? "error mono" : "mono", text: pair[1] }))
  })
  $("case-counterexample").textContent = JSON.stringify(failing.counterexample, null, 2) ?? "undefined"
  $("case").hidden = false
  // A run of simnet explore: its screens, step by step, first.
  if (failing.frames) {
    showFrames(failing.frames)
    showTab("screen", false)
  }
  document.title = "simnet: failing case " + failing.name
}
