// @ts-check
// The page starts on the request list and opens the feed.
showTab("requests", false);
connect();
