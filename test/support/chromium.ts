/**
 * Headless Chromium for browser tests, with web security and site isolation ON: the flags of
 * `@sparticuz/chromium`'s default `args` that turn them off (`--disable-web-security`, the
 * site-isolation switches, insecure content) are dropped, so a page from a foreign origin is held
 * to the same-origin policy as in a real user's browser and a test of cross-origin refusals proves
 * something. `--single-process` goes too: it folds every site into one renderer.
 */
import chromium from "@sparticuz/chromium"
import puppeteer, { type Browser } from "puppeteer-core"

const WEAKENING = [
  /^--disable-web-security$/,
  /^--disable-site-isolation-trials$/,
  /^--allow-running-insecure-content$/,
  /^--disable-features=.*(IsolateOrigins|site-per-process)/,
  /^--single-process$/
]

/** The launch flags: sparticuz's, less every one that weakens the same-origin policy. */
export const secureArgs = (extra: ReadonlyArray<string> = []): Array<string> => [
  ...chromium.args.filter((arg) => !WEAKENING.some((pattern) => pattern.test(arg))),
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  ...extra
]

/** Launches Chromium with `secureArgs(extra)`. */
export const launchSecureChromium = async (extra: ReadonlyArray<string> = []): Promise<Browser> =>
  puppeteer.launch({ executablePath: await chromium.executablePath(), args: secureArgs(extra), headless: true })
