/**
 * What simnet's servers are doing below the level of a request, for deciding that an app is at
 * rest (`terminal/rest.ts`): a tick for every connection, request or tunnel event a server sees
 * and every message its TLS thread exchanges, and the tunnels whose TLS handshake is under way.
 * A request the app has sent but simnet has not parsed yet is in neither the request log nor the
 * network's `quiescent`; it moves these counters (its bytes are read, handed to the TLS thread,
 * handed back), so "the counters did not move for a while" closes that gap.
 *
 * The counters are the process's, not one network's: runs side by side (explore's workers) can
 * only delay each other's rest, never make a false one.
 */

let ticks = 0
let opening = 0

/** Counts one event of a server's (a connection, a request, a tunnel's bytes). */
export const touch = (): void => {
  ticks++
}

/**
 * Marks a tunnel whose TLS handshake has begun: the app is waiting on simnet until the returned
 * function is called (the handshake done, or the connection closed; later calls do nothing).
 */
export const opened = (): (() => void) => {
  opening++
  ticks++
  let done = false
  return () => {
    if (done) return
    done = true
    opening--
    ticks++
  }
}

/** The events seen so far, and the handshakes under way now. */
export const activity = (): { readonly ticks: number; readonly opening: number } => ({ ticks, opening })
