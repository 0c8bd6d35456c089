/**
 * How a path of `simnet serve` names its target, kept apart from the server so that the trace,
 * the inspector and `replayOver` read it without loading the HTTP server.
 */

/**
 * Maps a loopback path `/HOST/PATH?QUERY` to `https://HOST/PATH?QUERY`, or undefined when the
 * path names no host.
 */
export const targetUrl = (path: string): string | undefined => {
  // Read by hand, as every request's path is: a regular expression's match and groups were
  // strings made to be thrown away. The host runs to the first `/` or `?`; no `#` anywhere.
  if (path.charCodeAt(0) !== SLASH || path.includes("#")) return undefined
  let end = 1
  while (end < path.length && path.charCodeAt(end) !== SLASH && path.charCodeAt(end) !== QUESTION) end++
  if (!isAuthority(path, 1, end)) return undefined
  const host = path.slice(1, end)
  if (end === path.length) return `https://${host}/`
  return path.charCodeAt(end) === QUESTION ? `https://${host}/${path.slice(end)}` : `https://${host}${path.slice(end)}`
}

const SLASH = 47
const QUESTION = 63

/** Whether `path[from, to)` is a host of letters, digits, dots and dashes, with a `:port` of digits or none. */
const isAuthority = (path: string, from: number, to: number): boolean => {
  let i = from
  while (i < to) {
    const c = path.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46)) break
    i++
  }
  if (i === from) return false
  if (i === to) return true
  if (path.charCodeAt(i) !== 58 || i + 1 === to) return false
  for (let j = i + 1; j < to; j++) {
    const c = path.charCodeAt(j)
    if (c < 48 || c > 57) return false
  }
  return true
}
