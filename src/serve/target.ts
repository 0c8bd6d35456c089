/**
 * How a path of `simnet serve` names its target, kept apart from the server so that the trace,
 * the inspector and `replayOver` read it without loading the HTTP server.
 */

/**
 * Maps a loopback path `/HOST/PATH?QUERY` to `https://HOST/PATH?QUERY`, or undefined when the
 * path names no host.
 */
export const targetUrl = (path: string): string | undefined => {
  const match = /^\/([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/.exec(path)
  if (match === null || !/^[A-Za-z0-9.-]+(:\d+)?$/.test(match[1])) return undefined
  return `https://${match[1]}${match[2] ?? "/"}${match[3] ?? ""}`
}
