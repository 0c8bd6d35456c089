// @ts-check
// The page starts on the request list and opens the feed.
showTab("requests", false)
// A failing case (simnet show): its banner first, the page read-only; then the feed.
api("GET", "/ui/case")
  .then((res) => {
    if (res.ok && res.json.case) showCase(res.json.case)
  })
  .finally(connect)
