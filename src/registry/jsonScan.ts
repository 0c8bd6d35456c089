/**
 * Reading JSON text without parsing it: where a string or a value that starts at an index ends,
 * by one scan that steps over strings, text cut off anywhere included. The redactor finds a body
 * preview's credential members this way (`redact.ts`), a preview being JSON cut mid-value.
 */

/** A JSON string token (quotes included, possibly cut off) as the text it stands for. */
export const jsonStringValue = (token: string): string => {
  try {
    return JSON.parse(token.endsWith('"') && token.length > 1 ? token : `${token}"`) as string
  } catch {
    return token.slice(1, token.endsWith('"') ? -1 : undefined)
  }
}

/** Whether a character is JSON whitespace. */
export const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r"

/**
 * Where a JSON value that starts at `i` ends (exclusive), found by one scan that steps over
 * strings; a value cut off by the preview ends at the text's end.
 */
export const valueEnd = (text: string, i: number): number => {
  const first = text[i]
  if (first === '"') return stringEnd(text, i)
  if (first === "{" || first === "[") {
    let depth = 0
    let j = i
    while (j < text.length) {
      const c = text[j]
      if (c === '"') {
        j = stringEnd(text, j)
        continue
      }
      if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") {
        depth--
        if (depth === 0) return j + 1
      }
      j++
    }
    return text.length
  }
  let j = i
  while (j < text.length && text[j] !== "," && text[j] !== "}" && text[j] !== "]" && !isSpace(text[j])) j++
  return j
}

/** Where the JSON string that starts at `i` (a quote) ends, exclusive. */
export const stringEnd = (text: string, i: number): number => {
  let j = i + 1
  while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1
  return Math.min(j + 1, text.length)
}
